// The source reads one way: no module of src/ imports (even for types) one that imports it back,
// and webhooks/types.ts sits at the bottom of the receiver (it imports only leaf modules).
import { describe, expect, it } from 'vitest';
import { findCycle, sourceGraph } from './support/import-graph.js';

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
