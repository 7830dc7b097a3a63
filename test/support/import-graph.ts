// The import graph of src/, for the structure tests (test/structure.test.ts, test/client/core-structure.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** src/, whose modules the graph is made of. */
export const root = join(import.meta.dirname, '../../src');

/** Every .ts module under `directory`, as paths relative to src/. */
function modules(directory = root): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

/** Each module's imports of other src/ modules (static, dynamic, type-only and re-exports alike). */
export function sourceGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of modules()) {
    const text = readFileSync(join(root, file), 'utf8');
    const specifiers = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)\.js'/g)].map((match) => match[1]!);
    graph.set(
      file,
      specifiers.map((specifier) => relative(root, resolve(dirname(join(root, file)), `${specifier}.ts`))),
    );
  }
  return graph;
}

/** The first cycle found, as the modules along it, or undefined. */
export function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

