// The source reads one way: no module of src/ imports (even for types) one that imports it back,
// and webhooks/types.ts sits at the bottom of the receiver (it imports only leaf modules). The SDK
// loads a module of its own lazily only where users gain: a part most of them never run.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCycle, root, sourceGraph } from './support/import-graph.js';

/** Every `import('./…')` of a module of src/ by another, as `importer → imported`. */
function lazyImports(files: Iterable<string>): string[] {
  return [...files].flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/import\(\s*'(\.{1,2}\/[^']+)\.js'/g)].map(
      (match) => `${file} → ${relative(root, resolve(dirname(join(root, file)), `${match[1]!}.ts`))}`,
    ),
  );
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

  it('loads its own modules lazily only where users gain: the folder upload, and the Node parts a web bundle leaves out', () => {
    // Anything else is a static import: what a call does or says never depends on whether an import has finished.
    expect(lazyImports(graph.keys()).sort()).toEqual([
      'index.node.ts → core/transport-node.ts',
      'index.node.ts → uploads/file-system-node.ts',
      'resources/documents.ts → uploads/upload-many.ts',
    ]);
  });

  it('the cycle finder finds a cycle, however long', () => {
    expect(findCycle(new Map([['a', ['b']], ['b', ['a']]]))).toEqual(['a', 'b', 'a']);
    expect(findCycle(new Map([['x', ['a']], ['a', ['b']], ['b', ['c']], ['c', ['a']]]))).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(new Map([['a', ['b']], ['b', []]]))).toBeUndefined();
  });
});
