// The source reads one way: no module of src/ imports (even for types) one that imports it back,
// and webhooks/types.ts sits at the bottom of the receiver (it imports only leaf modules).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../src');

/** Every .ts module under `directory`, as paths relative to src/. */
function modules(directory = root): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

/** Each module's imports of other src/ modules (static, dynamic, type-only and re-exports alike). */
function sourceGraph(): Map<string, string[]> {
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

describe('the structure of src/', () => {
  const graph = sourceGraph();

  it('reads every module, and every relative import names a module that exists', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('webhooks/receiver.ts')).toContain('webhooks/types.ts');
    const missing = [...graph].flatMap(([file, imports]) => imports.filter((target) => !graph.has(target)).map((target) => `${file} → ${target}`));
    expect(missing).toEqual([]);
  });

  it('has no import cycle anywhere', () => {
    expect(findCycle(graph)).toBeUndefined();
  });

  it('webhooks/types.ts is at the bottom: all it reaches are the event, error and store definitions', () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      for (const target of graph.get(file) ?? []) if (!reached.has(target)) visit(reached.add(target) && target);
    };
    visit('webhooks/types.ts');
    expect([...reached].sort()).toEqual(['shared/svc-error.ts', 'webhooks/dedupe.ts', 'webhooks/errors.ts', 'webhooks/event-kinds.ts', 'webhooks/events.ts']);
  });

  it('the cycle finder finds a cycle, however long', () => {
    expect(findCycle(new Map([['a', ['b']], ['b', ['a']]]))).toEqual(['a', 'b', 'a']);
    expect(findCycle(new Map([['x', ['a']], ['a', ['b']], ['b', ['c']], ['c', ['a']]]))).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(new Map([['a', ['b']], ['b', []]]))).toBeUndefined();
  });
});
