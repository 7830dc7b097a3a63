// What the receiver needs for a dedupe store or an inbox that may answer late (Redis, a queue): each
// call that returns a promise runs under storeTimeoutMs, and the inbox stage. (The default memory
// store answers at once: its calls never reach a deadline.) The deadlines themselves are the
// receiver's (deadlines.ts), passed in with their timeout.
import type { Deadlines } from './deadlines.js';
import type { WebhookEvent } from './events.js';
import type { DeliveryRecord } from './hooks.js';
import type { Answer, WebhookInbox } from './types.js';

/** A store call that did not settle within `storeTimeoutMs`. */
export class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
}

/**
 * A store call under its deadline, its outcome mapped in the same step: `settled(value)` at once when
 * `value` is not a promise; otherwise a promise of `settled(result)` once it answers, or of
 * `failed(error)` once it rejects or the deadline passes first (`deadlines.timeoutMs`, as `deadlines`
 * counts it; the error a `StoreTimeoutError`). A store that never answers (a paused Redis, a peer that accepts and
 * stays silent, a client queueing commands while it reconnects forever) then costs a delivery `ms`,
 * not its socket for ever. The mapping is part of the one promise made per call (not a `.then`
 * after it): a Redis store makes two calls per delivery. A mapping that throws rejects the promise.
 */
export function withDeadline<T, A>(
  value: T | PromiseLike<T>,
  deadlines: Deadlines,
  call: string,
  settled: (result: T) => A,
  failed: (error: unknown) => A,
): A | Promise<Awaited<A>> {
  if (typeof (value as PromiseLike<T> | undefined)?.then !== 'function') return settled(value as T);
  return new Promise<Awaited<A>>((resolve, reject) => {
    // Mapped once: a store that answers after its deadline passed (a paused Redis waking) must not
    // have its late outcome mapped too (onError told twice, a claim released twice, a hook after the answer).
    let ended = false;
    const end = <V>(map: (input: V) => A, input: V) => {
      if (ended) return;
      ended = true;
      deadlines.delete(deadline);
      try {
        resolve(map(input) as Awaited<A>);
      } catch (error) {
        reject(error as Error);
      }
    };
    const deadline = deadlines.add(() => end(failed, new StoreTimeoutError(`[svc-sdk] webhook dedupe: the store's ${call}() did not answer within ${deadlines.timeoutMs} ms (storeTimeoutMs)`)));
    (value as PromiseLike<T>).then(
      (result) => end(settled, result),
      (error: unknown) => end(failed, error),
    );
  });
}

const INBOX_FAILED: Answer = [500, 'inbox_failed'];

const UTF8 = /* @__PURE__ */ new TextDecoder();

/**
 * The receiver's stage on, with an inbox: puts the verified delivery in `inbox` (the body as
 * received, as text, keyed by its delivery_id) under the deadlines' timeout (storeTimeoutMs). `undefined` once it is stored, so
 * the answer is 2xx only then; 500 when the inbox failed or did not answer (`failed` hears why:
 * onError, and the claim, if any, released): the service retries, and a retry of a delivery stored
 * already adds nothing.
 */
export function inboxStage(
  inbox: WebhookInbox,
  deadlines: Deadlines,
  failed: (failure: unknown, event: WebhookEvent) => Promise<void>,
): (event: WebhookEvent, body: Uint8Array, record?: DeliveryRecord) => Answer | undefined | PromiseLike<Answer | undefined> {
  return (event, body, record) => {
    const refused = async (failure: unknown) => {
      await failed(failure instanceof StoreTimeoutError ? new Error(`[svc-sdk] webhook inbox: put() did not answer within ${deadlines.timeoutMs} ms (storeTimeoutMs)`) : failure, event);
      return INBOX_FAILED;
    };
    let put;
    try {
      // A delivery is JSON, so UTF-8.
      put = inbox.put({ deliveryId: event.delivery_id, kind: event.event, body: UTF8.decode(body), receivedAt: Date.now() });
    } catch (failure) {
      return refused(failure);
    }
    return withDeadline(put, deadlines, 'put', () => void record?.stored(), refused);
  };
}
