import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createMemoryDedupeStore } from '../../src/webhooks/index.js';

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;

let warn: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => {
  vi.useRealTimers();
  warn.mockRestore();
});

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

  test('remembers a processed id for 12 h 5 min by default (the 12 h replay window and 5 minutes of clock skew)', () => {
    const store = createMemoryDedupeStore();
    expect(store.ttlMs).toBe(12 * HOUR + 5 * MINUTE);
    store.claim('a');
    store.complete('a');
    vi.advanceTimersByTime(12 * HOUR + 5 * MINUTE - 1);
    expect(store.claim('a')).toBe('done');
    vi.advanceTimersByTime(1);
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

  test('keeps 50 000 ids by default and forgets the oldest processed first', () => {
    const store = createMemoryDedupeStore();
    for (let i = 0; i < 50_000; i++) {
      store.claim(`id-${i}`);
      store.complete(`id-${i}`);
    }
    expect(store.claim('id-0')).toBe('done'); // a read: it changes nothing
    store.claim('id-new'); // the 50 001st id: id-0, the oldest, is forgotten
    expect(store.claim('id-49999')).toBe('done');
    expect(store.claim('id-1')).toBe('done');
    expect(store.claim('id-0')).toBe('claimed'); // forgotten; this claim in turn forgets id-1
    expect(store.claim('id-1')).toBe('claimed');
  });

  test('never drops a live claim to make room: when every entry is a live claim, a new delivery waits', () => {
    const store = createMemoryDedupeStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) expect(store.claim(id)).toBe('claimed');
    // Full of deliveries being processed: a new one is refused for now (409), none is forgotten.
    expect(store.claim('d')).toBe('processing');
    for (const id of ['a', 'b', 'c']) expect(store.claim(id)).toBe('processing');
    // One ends: its processed id is the only one that may go, and it goes for the newcomer.
    store.complete('a');
    expect(store.claim('d')).toBe('claimed');
    // a, the one processed id, was forgotten to make room; full of live claims again, a retry of it waits.
    expect(store.claim('a')).toBe('processing');
    for (const id of ['b', 'c', 'd']) expect(store.claim(id)).toBe('processing');
  });

  test('a claim survives any number of newer deliveries while it is live', () => {
    const store = createMemoryDedupeStore({ maxEntries: 100 });
    expect(store.claim('slow')).toBe('claimed');
    for (let i = 0; i < 10_000; i++) {
      store.claim(`id-${i}`);
      store.complete(`id-${i}`);
    }
    expect(store.claim('slow')).toBe('processing');
    store.complete('slow');
    expect(store.claim('slow')).toBe('done');
  });

  test('forgets expired ids before live ones', () => {
    const store = createMemoryDedupeStore({ maxEntries: 2, ttlMs: HOUR });
    store.claim('live');
    store.complete('live'); // remembered for an hour
    vi.advanceTimersByTime(MINUTE);
    store.claim('crashed'); // never completed: its claim expires after 5 minutes
    vi.advanceTimersByTime(6 * MINUTE);
    // Full (2 ids), but 'crashed' expired: it makes room, not the older but live 'live'.
    expect(store.claim('new')).toBe('claimed');
    expect(store.claim('live')).toBe('done');
  });

  test('a delivery released and claimed again keeps its new claim for the full 5 minutes', () => {
    const store = createMemoryDedupeStore();
    expect(store.claim('crashed')).toBe('claimed'); // an older claim, never completed
    expect(store.claim('a')).toBe('claimed');
    store.release('a'); // on() failed: the service retries a minute later
    vi.advanceTimersByTime(MINUTE);
    expect(store.claim('a')).toBe('claimed');
    vi.advanceTimersByTime(4 * MINUTE + 1); // the first claim's time is up, not the second's
    expect(store.claim('a')).toBe('processing');
    vi.advanceTimersByTime(MINUTE);
    expect(store.claim('a')).toBe('claimed');
  });

  test('a slow claim still expires after thousands of quicker deliveries went past it', () => {
    const store = createMemoryDedupeStore();
    expect(store.claim('slow')).toBe('claimed'); // its worker crashes: never completed
    for (let i = 0; i < 5000; i++) {
      store.claim(`id-${i}`);
      store.complete(`id-${i}`);
    }
    expect(store.claim('slow')).toBe('processing');
    vi.advanceTimersByTime(5 * MINUTE);
    expect(store.claim('slow')).toBe('claimed');
    expect(store.claim('id-4999')).toBe('done');
  });

  test('warns once when it must forget a processed id early (replay protection weakened), never for expired ones', () => {
    const store = createMemoryDedupeStore({ maxEntries: 2, ttlMs: HOUR });
    for (const id of ['a', 'b']) {
      store.claim(id);
      store.complete(id);
    }
    vi.advanceTimersByTime(HOUR); // both expired: making room for more is no loss
    for (const id of ['c', 'd']) {
      store.claim(id);
      store.complete(id);
    }
    expect(warn).not.toHaveBeenCalled();
    store.claim('e'); // full of live ids: 'c' goes before its time
    store.claim('f');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^\[svc-sdk\] webhook dedupe: the memory store is full \(2 ids\).*raise maxEntries or use createRedisDedupeStore$/));
  });

  test('no warning when a late completion finds only expired ids in the way', () => {
    const store = createMemoryDedupeStore({ maxEntries: 2, ttlMs: HOUR, processingTtlMs: MINUTE });
    store.claim('a');
    store.complete('a'); // remembered for an hour
    vi.advanceTimersByTime(58 * MINUTE);
    store.claim('b'); // its worker is slow: the claim expires after a minute
    vi.advanceTimersByTime(1.5 * MINUTE);
    store.claim('c');
    vi.advanceTimersByTime(1.5 * MINUTE); // 'a' expired too
    store.complete('b'); // late: room comes from the expired 'a', nothing live is forgotten
    expect(warn).not.toHaveBeenCalled();
    expect(store.claim('b')).toBe('done');
  });

  test('stays bounded over many times maxEntries deliveries: exactly the newest maxEntries are remembered', () => {
    const store = createMemoryDedupeStore({ maxEntries: 3000 });
    for (let i = 0; i < 12_000; i++) {
      store.claim(`id-${i}`);
      store.complete(`id-${i}`);
    }
    for (let i = 9000; i < 12_000; i++) expect(store.claim(`id-${i}`)).toBe('done'); // reads: nothing changes
    expect(store.claim('id-8999')).toBe('claimed');
    expect(store.claim('id-5000')).toBe('claimed');
  });

  test.each([[{ maxEntries: 0 }], [{ ttlMs: -1 }], [{ processingTtlMs: Number.NaN }]])(
    'throws a [svc-sdk] TypeError for %o',
    (options) => {
      expect(() => createMemoryDedupeStore(options)).toThrow(/^\[svc-sdk\] createMemoryDedupeStore: maxEntries, ttlMs and processingTtlMs must be positive numbers/);
    },
  );
});
