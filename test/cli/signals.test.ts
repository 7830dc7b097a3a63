// untilStopped, which emulator and listen wait on: the process's first SIGINT or SIGTERM, or the
// host's stop (CliIO's `stop`), whichever comes first; either way no handler is left behind.
// The signals are emitted on this process (no real signal is sent: the listeners are what one reaches).
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { untilStopped, watchStop } from '../../packages/cli/src/signals.js';

const counts = () => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
const settled = <T>(promise: Promise<T>) => Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve('pending'), 20))]);

describe('untilStopped(abort?)', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('resolves with the first %s and then removes its handlers (a later signal ends the process again)', async (signal) => {
    const before = counts();
    const abort = new AbortController();
    const stopped = untilStopped(abort.signal);
    expect(counts()).toEqual([before[0]! + 1, before[1]! + 1]);
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(1);
    expect(await settled(stopped)).toBe('pending');
    process.emit(signal, signal);
    expect(await stopped).toBe(signal);
    expect(counts()).toEqual(before);
    // Its listener of the host's stop went too (a host's stop may outlive many waits).
    expect(getEventListeners(abort.signal, 'abort')).toEqual([]);
  });

  it('resolves with the name the host\'s stop is aborted with, and removes the signal handlers', async () => {
    const before = counts();
    const abort = new AbortController();
    const stopped = untilStopped(abort.signal);
    abort.abort('SIGINT');
    expect(await stopped).toBe('SIGINT');
    expect(counts()).toEqual(before);
  });

  it('resolves at once when the host\'s stop was aborted before', async () => {
    const before = counts();
    const stopped = untilStopped(AbortSignal.abort('SIGTERM'));
    expect(await settled(stopped)).toBe('SIGTERM');
    expect(counts()).toEqual(before);
  });

  it('without a stop, only a signal ends the wait', async () => {
    const stopped = untilStopped();
    expect(await settled(stopped)).toBe('pending');
    process.emit('SIGTERM', 'SIGTERM');
    expect(await stopped).toBe('SIGTERM');
  });
});

describe('watchStop(abort?)', () => {
  it('dispose removes every handler it added, and its wait then never ends', async () => {
    const before = counts();
    const abort = new AbortController();
    const watch = watchStop(abort.signal);
    expect(counts()).toEqual([before[0]! + 1, before[1]! + 1]);
    watch.dispose();
    expect(counts()).toEqual(before);
    expect(getEventListeners(abort.signal, 'abort')).toEqual([]);
    abort.abort('SIGINT');
    expect(await settled(watch.stopped)).toBe('pending');
  });
});
