// How the receiver chains its steps: synchronously when a step's result is not a promise (node:crypto,
// the memory store, a synchronous `on`), so the common path costs no promise and no turn of the event
// loop; through a promise otherwise. And the deadline every store call runs under.
import type { Deadlines } from './deadlines.js';

/**
 * Runs `step`, then `proceed` with its result: at once when the result is not a promise, once it
 * settles otherwise. A throw or a rejection goes to `failed` (rethrown without one).
 */
export function next<T, R>(
  step: () => T | PromiseLike<T>,
  proceed: (value: T) => R | Promise<R>,
  failed?: (error: unknown) => R | Promise<R>,
): R | Promise<R> {
  let value;
  try {
    value = step();
  } catch (error) {
    if (failed) return failed(error);
    throw error;
  }
  // A thenable (any store's promise) is adopted by a real promise; anything else is the value.
  return isThenable(value) ? Promise.resolve(value).then(proceed, failed) : proceed(value as T);
}

/** Whether `value` is a promise or any other thenable. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}

const ignore = (): void => {};

/**
 * Runs a step whose failure must not change the answer: a promise it returns is waited for, its
 * rejection ignored; a synchronous step (the memory store) costs no promise.
 */
export function settle(step: () => unknown): void | Promise<void> {
  return next(step, ignore, ignore);
}

/** A store call that did not settle within `storeTimeoutMs`. */
export class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
}

/**
 * `value` itself when it is not a promise; otherwise a promise that settles like it, or rejects with
 * `StoreTimeoutError` once the deadline passes first (`ms`, as `deadlines` counts it). A store that
 * never answers (a paused Redis, a peer that accepts and stays silent, a client queueing commands
 * while it reconnects forever) then costs a delivery `ms`, not its socket for ever.
 */
export function withDeadline<T>(value: T | PromiseLike<T>, deadlines: Deadlines, ms: number, call: string): T | Promise<T> {
  if (!isThenable(value)) return value as T;
  return new Promise<T>((resolve, reject) => {
    const deadline = deadlines.add(() =>
      reject(new StoreTimeoutError(`[svc-sdk] webhook dedupe: the store's ${call}() did not answer within ${ms} ms (storeTimeoutMs)`)),
    );
    (value as PromiseLike<T>).then(
      (result) => {
        deadlines.delete(deadline);
        resolve(result);
      },
      (error: unknown) => {
        deadlines.delete(deadline);
        reject(error as Error);
      },
    );
  });
}
