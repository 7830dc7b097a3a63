// The memory dedupe store over a long run: ids expire on time even after its internal ring was
// rebuilt while a delivery that had been processed twice (its claim expired mid-processing) was
// recorded again.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ENTRIES } from './entries.js';

afterEach(() => {
  vi.useRealTimers();
});

describe.each(ENTRIES)('%s entry: createMemoryDedupeStore over time', (_entry, sdk) => {
  test('a processed id is forgotten after ttlMs even when a delivery completed twice moved past it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.parse('2026-06-01T12:00:00.000Z');
    vi.setSystemTime(start);
    const store = sdk.createMemoryDedupeStore({ ttlMs: 1000, processingTtlMs: 100 });
    // A slow delivery: its claim expires while it is processed, and the service's retry claims it again.
    expect(await store.claim('slow')).toBe('claimed');
    vi.setSystemTime(start + 200);
    expect(await store.claim('slow')).toBe('claimed');
    await store.complete('slow'); // the retry finishes first: remembered until start + 1200
    vi.setSystemTime(start + 300);
    for (let index = 1; index <= 1023; index++) {
      expect(await store.claim(`d${index}`)).toBe('claimed');
      await store.complete(`d${index}`); // remembered until start + 1300
    }
    vi.setSystemTime(start + 400);
    await store.complete('slow'); // the first processing finishes: remembered again, until start + 1400
    vi.setSystemTime(start + 1350);
    // d1..d1023 expired at start + 1300: a replay of one is a new delivery now; 'slow' is still remembered.
    expect(await store.claim('d1')).toBe('claimed');
    expect(await store.claim('d1023')).toBe('claimed');
    expect(await store.claim('slow')).toBe('done');
    vi.setSystemTime(start + 1401);
    expect(await store.claim('slow')).toBe('claimed');
  });
});
