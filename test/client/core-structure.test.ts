// The core reads one way: no module of src/core imports (even for types) one that imports it back,
// and every runtime question is asked of src/shared/runtime.ts alone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../src');

/** Each src/core module's imports of other src/core modules. */
function coreGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(join(root, 'core'))) {
    const text = readFileSync(join(root, 'core', file), 'utf8');
    const imports = [...text.matchAll(/from '\.\/([\w-]+)\.js'/g)].map((match) => `${match[1]}.ts`);
    graph.set(file, imports);
  }
  return graph;
}

/** The first cycle found, as the modules along it, or undefined. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
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

describe('the core\'s structure', () => {
  it('src/core has no import cycle (http, api-promise, body and pagination import one way, types.ts at the bottom)', () => {
    const graph = coreGraph();
    expect(graph.get('types.ts')).toEqual([]);
    expect(findCycle(graph)).toBeUndefined();
  });

  it('the cycle finder finds a cycle', () => {
    expect(findCycle(new Map([['a', ['b']], ['b', ['a']]]))).toEqual(['a', 'b', 'a']);
  });

  it('no module outside src/shared/runtime.ts asks which runtime this is', () => {
    const askers: string[] = [];
    const files = ['core', 'uploads', 'resources', 'shared'].flatMap((dir) => readdirSync(join(root, dir)).map((file) => `${dir}/${file}`));
    for (const file of [...files, 'client.ts']) {
      if (file === 'shared/runtime.ts') continue;
      const text = readFileSync(join(root, file), 'utf8');
      if (/importScripts|userAgent|versions\?\.node|'Bun' in|'Deno' in|(?:globalThis|scope|self)\)?\.(?:document|window)\b|typeof (?:document|window)\b/.test(text)) askers.push(file);
    }
    expect(askers).toEqual([]);
  });
});
