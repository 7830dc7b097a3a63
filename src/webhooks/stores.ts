// What the receiver needs for a dedupe store or an inbox that may answer late (Redis, a queue): each
// call that returns a promise runs under storeTimeoutMs, and the inbox stage. The receiver
// (receiver.ts) loads this module only when it is given a store (`dedupe`) or an `inbox`: its
// default memory store answers at once, and a default handler carries none of this. The deadlines
// themselves are the receiver's (deadlines.ts), passed in, so this module shares no code with it.
import type { Deadlines } from './deadlines.js';
import type { WebhookEvent } from './events.js';
import type { DeliveryRecord } from './hooks.js';
import type { Answer, WebhookInbox } from './types.js';

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
  if (typeof (value as PromiseLike<T> | undefined)?.then !== 'function') return value as T;
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

const INBOX_FAILED: Answer = [500, 'inbox_failed'];

const UTF8 = /* @__PURE__ */ new TextDecoder();

/**
 * The receiver's stage on, with an inbox: puts the verified delivery in `inbox` (the body as
 * received, as text, keyed by its delivery_id) under `timeoutMs`. `undefined` once it is stored, so
 * the answer is 2xx only then; 500 when the inbox failed or did not answer (`failed` hears why:
 * onError, and the claim, if any, released): the service retries, and a retry of a delivery stored
 * already adds nothing.
 */
export function inboxStage(
  inbox: WebhookInbox,
  deadlines: Deadlines,
  timeoutMs: number,
  failed: (failure: unknown, event: WebhookEvent) => Promise<void>,
): (event: WebhookEvent, body: Uint8Array, record?: DeliveryRecord) => Promise<Answer | undefined> {
  return async (event, body, record) => {
    try {
      // A delivery is JSON, so UTF-8.
      const entry = { deliveryId: event.delivery_id, kind: event.event, body: UTF8.decode(body), receivedAt: Date.now() };
      await withDeadline(inbox.put(entry), deadlines, timeoutMs, 'put');
      record?.stored();
      return undefined;
    } catch (failure) {
      await failed(failure instanceof StoreTimeoutError ? new Error(`[svc-sdk] webhook inbox: put() did not answer within ${timeoutMs} ms (storeTimeoutMs)`) : failure, event);
      return INBOX_FAILED;
    }
  };
}
