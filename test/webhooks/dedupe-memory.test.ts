import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createMemoryDedupeStore } from '../../src/webhooks/index.js';

const HOUR = 60 * 60 * 1000;

beforeEach(() => vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }));
afterEach(() => vi.useRealTimers());

describe('createMemoryDedupeStore(options)', () => {
  test('claim → processing → done; release forgets the claim', () => {
    const store = createMemoryDedupeStore();
    expect(store.claim('a')).toBe('claimed');
    expect(store.claim('a')).toBe('processing');
    store.complete('a');
    expect(store.claim('a')).toBe('done');
    expect(store.claim('b')).toBe('claimed');
    store.release('b');
    expect(store.claim('b')).toBe('claimed');
  });

  test('remembers a processed id for 12 h by default (the service retries for about 10.6 h)', () => {
    const store = createMemoryDedupeStore();
    store.claim('a');
    store.complete('a');
    vi.advanceTimersByTime(11 * HOUR);
    expect(store.claim('a')).toBe('done');
    vi.advanceTimersByTime(1 * HOUR + 1);
    expect(store.claim('a')).toBe('claimed');
  });

  test('lets an unfinished claim expire after 5 minutes by default (a crashed attempt)', () => {
    const store = createMemoryDedupeStore();
    store.claim('a');
    vi.advanceTimersByTime(5 * 60 * 1000 - 1);
    expect(store.claim('a')).toBe('processing');
    vi.advanceTimersByTime(1);
    expect(store.claim('a')).toBe('claimed');
  });

  test('honours ttlMs and processingTtlMs', () => {
    const store = createMemoryDedupeStore({ ttlMs: 1000, processingTtlMs: 100 });
    store.claim('a');
    vi.advanceTimersByTime(100);
    expect(store.claim('a')).toBe('claimed');
    store.complete('a');
    vi.advanceTimersByTime(999);
    expect(store.claim('a')).toBe('done');
    vi.advanceTimersByTime(1);
    expect(store.claim('a')).toBe('claimed');
  });

  test('keeps 10 000 ids by default and forgets the oldest first', () => {
    const store = createMemoryDedupeStore();
    for (let i = 0; i < 10_000; i++) {
      store.claim(`id-${i}`);
      store.complete(`id-${i}`);
    }
    expect(store.claim('id-0')).toBe('done'); // a read: it changes nothing
    store.claim('id-new'); // the 10 001st id: id-0, the oldest, is forgotten
    expect(store.claim('id-9999')).toBe('done');
    expect(store.claim('id-0')).toBe('claimed'); // forgotten; this claim in turn forgets id-1
    expect(store.claim('id-1')).toBe('claimed');
    expect(store.claim('id-2')).toBe('claimed');
  });

  test('honours maxEntries; completing an id refreshes its place', () => {
    const store = createMemoryDedupeStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) store.claim(id);
    store.complete('a'); // a is now the newest
    store.claim('d'); // evicts b, the oldest
    expect(store.claim('b')).toBe('claimed'); // evicts c
    expect(store.claim('a')).toBe('done');
    expect(store.claim('c')).toBe('claimed');
  });

  test.each([[{ maxEntries: 0 }], [{ ttlMs: -1 }], [{ processingTtlMs: Number.NaN }]])(
    'throws a [svc-sdk] TypeError for %o',
    (options) => {
      expect(() => createMemoryDedupeStore(options)).toThrow(/^\[svc-sdk\] createMemoryDedupeStore: maxEntries, ttlMs and processingTtlMs must be positive numbers/);
    },
  );
});
