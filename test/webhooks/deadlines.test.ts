// The coarse deadlines behind bodyTimeoutMs and storeTimeoutMs: one timer for every pending
// operation, an operation given between 1 and 1.1 times the timeout, the timer gone when idle.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { coarseDeadlines } from '../../src/webhooks/deadlines.js';
import { StoreTimeoutError, withDeadline } from '../../src/webhooks/stores.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('coarseDeadlines(timeoutMs)', () => {
  test('an operation added as a sweep starts expires 1.1 timeouts later (11 sweeps of a tenth), not before', () => {
    const deadlines = coarseDeadlines(1000);
    const expired = vi.fn();
    deadlines.add(expired);
    vi.advanceTimersByTime(1099);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
    // Expired once and forgotten: the sweeps of a later operation do not call it again.
    deadlines.add(() => {});
    vi.advanceTimersByTime(5000);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  test('an operation added just before a sweep is given the full timeout, never less', () => {
    const deadlines = coarseDeadlines(1000);
    vi.advanceTimersByTime(50);
    deadlines.add(() => {}); // starts the timer: sweeps at 150, 250, …
    vi.advanceTimersByTime(99);
    const expired = vi.fn();
    deadlines.add(expired); // at 149 ms, one ms before a sweep
    vi.advanceTimersByTime(1000);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  test('one timer for every pending operation; deleted ones never expire; the timer stops at the first sweep with none left', () => {
    const deadlines = coarseDeadlines(1000);
    const kept = vi.fn();
    const gone = vi.fn();
    deadlines.add(kept);
    const deadline = deadlines.add(gone);
    expect(vi.getTimerCount()).toBe(1);
    deadlines.delete(deadline);
    vi.advanceTimersByTime(1100);
    expect(kept).toHaveBeenCalledTimes(1);
    expect(gone).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
    // A new operation starts it again.
    deadlines.add(() => {});
    expect(vi.getTimerCount()).toBe(1);
  });

  test('deleting any of several pending operations (the first, one between, the last, one twice, one expired) leaves exactly the others to expire, in order', () => {
    const deadlines = coarseDeadlines(1000);
    const expired: string[] = [];
    const added = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((name) => [name, deadlines.add(() => expired.push(name))]));
    deadlines.delete(added.a!); // the first
    deadlines.delete(added.c!); // one between
    deadlines.delete(added.d!); // the one after it, which now follows b
    deadlines.delete(added.f!); // the last
    deadlines.delete(added.c!); // twice: nothing more happens
    const later = deadlines.add(() => expired.push('g')); // added after the last was deleted: at the end again
    vi.advanceTimersByTime(1100);
    expect(expired).toEqual(['b', 'e', 'g']);
    // Expired ones deleted afterwards (their operation ended late) change nothing, and new ones still expire.
    deadlines.delete(added.b!);
    deadlines.delete(later);
    deadlines.add(() => expired.push('h'));
    vi.advanceTimersByTime(1100);
    expect(expired).toEqual(['b', 'e', 'g', 'h']);
  });

  test('works where a timer is a number, with no unref (browsers, Workers)', () => {
    vi.spyOn(globalThis, 'setInterval').mockReturnValue(7 as unknown as ReturnType<typeof setInterval>);
    const deadlines = coarseDeadlines(1000);
    expect(() => deadlines.add(() => {})).not.toThrow();
  });
});

describe('withDeadline(value, deadlines, call, settled, failed)', () => {
  test('a store call that answers in time forgets its deadline: the timer stops at the next sweep', async () => {
    const deadlines = coarseDeadlines(2000);
    await expect(withDeadline(Promise.resolve('claimed'), deadlines, 'claim', (state) => `${state}!`, String)).resolves.toBe('claimed!');
    await expect(withDeadline(Promise.reject(new Error('down')), deadlines, 'claim', String, (error) => `failed: ${(error as Error).message}`)).resolves.toBe('failed: down');
    vi.advanceTimersByTime(200);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a store call that never answers is rejected with StoreTimeoutError naming the call and storeTimeoutMs', async () => {
    const deadlines = coarseDeadlines(2000);
    const outcome = withDeadline(new Promise<string>(() => {}), deadlines, 'complete', () => 'resolved' as unknown, (error) => error);
    vi.advanceTimersByTime(2200);
    const error = await outcome;
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect((error as Error).message).toBe("[svc-sdk] webhook dedupe: the store's complete() did not answer within 2000 ms (storeTimeoutMs)");
  });

  test('a mapping that throws rejects the promise (never leaves it pending), and its deadline is forgotten', async () => {
    const deadlines = coarseDeadlines(2000);
    const throws = (): never => {
      throw new Error('a hook threw');
    };
    await expect(withDeadline(Promise.resolve('claimed'), deadlines, 'claim', throws, String)).rejects.toThrow('a hook threw');
    await expect(withDeadline(Promise.reject(new Error('down')), deadlines, 'claim', String, throws)).rejects.toThrow('a hook threw');
    vi.advanceTimersByTime(200);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a store call that answers after its deadline is mapped once, as the timeout: its late answer or failure is not mapped again', async () => {
    const deadlines = coarseDeadlines(2000);
    for (const late of [(answer: (v: string) => void) => answer('claimed'), (_: unknown, fail: (e: Error) => void) => fail(new Error('down'))]) {
      let answer!: (value: string) => void;
      let fail!: (error: Error) => void;
      const settled = vi.fn((state: string) => state);
      const failed = vi.fn((error: unknown) => (error as Error).name);
      const outcome = withDeadline(new Promise<string>((resolve, reject) => ((answer = resolve), (fail = reject))), deadlines, 'claim', settled, failed);
      vi.advanceTimersByTime(2200);
      await expect(outcome).resolves.toBe('StoreTimeoutError');
      late(answer, fail);
      await Promise.resolve();
      await Promise.resolve();
      expect(failed).toHaveBeenCalledTimes(1);
      expect(settled).not.toHaveBeenCalled();
    }
  });

  test('a value that is not a promise is mapped at once, with no deadline', () => {
    const deadlines = coarseDeadlines(2000);
    expect(withDeadline('done', deadlines, 'claim', (state) => `${state}!`, String)).toBe('done!');
    expect(vi.getTimerCount()).toBe(0);
  });
});
