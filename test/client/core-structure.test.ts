// The core reads one way: no module of src/core imports (even for types) one that imports it back
// (test/structure.test.ts checks all of src/), every runtime question is asked of src/shared/runtime.ts alone, and
// every operation is written down once, in src/operations.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations.js';
import { findCycle } from '../support/import-graph.js';

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

describe('the core\'s structure', () => {
  it('src/core has no import cycle (http, api-promise, body and pagination import one way, types.ts at the bottom)', () => {
    const graph = coreGraph();
    expect(graph.get('types.ts')).toEqual([]);
    expect(findCycle(graph)).toBeUndefined();
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

  it('no operation is restated outside the table: no path, method or path tag in src/resources, and each entry has one call site', () => {
    const restated: string[] = [];
    const uses = new Map<string, number>();
    for (const file of readdirSync(join(root, 'resources'))) {
      const text = readFileSync(join(root, 'resources', file), 'utf8');
      // Code only: JSDoc examples may show a path.
      const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      for (const [what, pattern] of [
        ['a path literal', /['`]\/(?:api\/v1|svc|rooms|webhooks)\b/],
        ['a method', /\bmethod\s*:|['"](?:GET|POST|PUT|PATCH|DELETE)['"]/],
        ['the path tag', /\bpath`/],
        ['an operation named by a string', /core\.(?:call|list)\(\s*['"`]/],
      ] as const) {
        if (pattern.test(code)) restated.push(`${file}: ${what}`);
      }
      for (const match of code.matchAll(/operations\['([\w.]+)'\]/g)) uses.set(match[1]!, (uses.get(match[1]!) ?? 0) + 1);
    }
    expect(restated).toEqual([]);
    expect(Object.fromEntries(uses)).toEqual(Object.fromEntries(Object.keys(operations).map((name) => [name, 1])));
    // Nothing else in src/ spells an /api/v1/ path of an operation but the core's prefix.
    const elsewhere = (readdirSync(root, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts') && !file.startsWith('testing') && !file.startsWith('cli') && file !== 'operations.ts')
      .filter((file) => /['`]\/api\/v1\/\w/.test(readFileSync(join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')));
    expect(elsewhere).toEqual([]);
  });

  it('the restatement check catches a restated operation', () => {
    const code = "return this.core.call(operations['rooms.create'], { params }, { method: 'POST' });";
    expect(/\bmethod\s*:|['"](?:GET|POST|PUT|PATCH|DELETE)['"]/.test(code)).toBe(true);
  });
});
