// The receiver: one delivery whose body was read already, whatever carried it. `createWebhookHandler`
// serves it as a fetch handler (handler.ts) and `toNodeListener` as a Node `(req, res)` listener
// (node-listener.ts): both call the same `receive`, so both answer alike.
/*
 * receive(delivery) checks the method (405) and the body (too large 413, stalled 408, failed 400),
 * then awaits its stages in order, each a function below:
 *   secret   the signing secrets (secrets.ts; 500 naming the fix while missing, or past secretTimeoutMs)
 *   check    signature, envelope, timestamp (check-delivery.ts: 401 or 400); a signature that matches
 *            none of a function's secrets has it read again, at most once a minute (a rotation)
 *   claim    the delivery_id claimed in the dedupe store (done already: 200; being processed: 409)
 *   on       the verified event delivered: on(event), its claim renewed while it runs (it threw: the
 *            claim released, 500). The one place an event is handed over: with an `inbox`, the delivery is
 *            put in it instead (putInInbox: stored, or 500 'inbox_failed'), and workers run on later.
 *   record   the delivery marked done in the store, then 200
 * Every wait has a deadline: the secret function (secretTimeoutMs), every store call (storeTimeoutMs),
 * the body (bodyTimeoutMs, in the adapters). Every refusal is answered from refusals.ts and reaches
 * onVerificationError. With `hooks`, the delivery's record (hooks.ts) hears the stages and the answer.
 */
import { checkDelivery, Refusal } from './check-delivery.js';
import { coarseDeadlines, StoreTimeoutError, withDeadline } from './deadlines.js';
import { memoryStore } from './dedupe-memory.js';
import { PROCESSING_TTL_MS, type ClaimResult, type DedupeStore } from './dedupe.js';
import type { WebhookEvent } from './events.js';
import { DeliveryRecord, webhookHookSets } from './hooks.js';
import { BODY_REFUSALS, refusalAnswer } from './refusals.js';
import { DEFAULT_TOLERANCE_MS, FUTURE_SKEW_MS, isTolerance } from './replay.js';
import { malformedSecret, secretSource, type MissingSecretError } from './secrets.js';
import type { Answer, Delivery, HmacVerify, Receiver, WebhookHandlerOptions, WebhookRejectReason } from './types.js';

const OK: Answer = [200];
// Being processed by another request right now: the service may come back in a minute.
const IN_PROGRESS: Answer = [409, 'delivery_in_progress', { 'retry-after': '60' }];
const HANDLER_FAILED: Answer = [500, 'handler_failed'];
const STORE_FAILED: Answer = [500, 'dedupe_store_failed'];
const INBOX_FAILED: Answer = [500, 'inbox_failed'];

/** The receiver of `createWebhookHandler(options)` over an HMAC back end; throws a clear error for bad options. */
export function createReceiver(hmac: HmacVerify, options: WebhookHandlerOptions): Receiver {
  const {
    secret,
    on,
    inbox,
    // With an inbox, its key (delivery_id) deduplicates: no store of our own unless one is given.
    dedupe = inbox === undefined,
    onError = logError,
    maxBodyBytes = 1_048_576,
    tolerance = DEFAULT_TOLERANCE_MS,
    storeTimeoutMs = 2000,
    secretTimeoutMs = 5000,
    bodyTimeoutMs = 10_000,
    onVerificationError,
    waitUntil,
    hooks,
  } = options ?? ({} as WebhookHandlerOptions);
  const store = dedupe === true ? memoryStore() : dedupe || undefined;
  checkOptions(options, store);
  const hookSets = webhookHookSets(hooks); // checked after the other options (a TypeError)
  const secrets = secretSource(secret, secretTimeoutMs);
  // How often a running on()'s claim is renewed: three times per processingTtlMs, so one late renewal never loses it.
  const renewEveryMs = Math.max(1, (store?.processingTtlMs ?? PROCESSING_TTL_MS) / 3);
  // One timer for every store call pending, not one per call (deadlines.ts).
  const storeDeadlines = coarseDeadlines(storeTimeoutMs);
  /** Calls one method of the store, by its name (the name a timeout's message gives): a promise it returns runs under storeTimeoutMs. */
  const callStore = (call: 'claim' | 'complete' | 'release' | 'renew', id: string): unknown => {
    const result: unknown = store![call]!(id);
    return isThenable(result) ? withDeadline(result, storeDeadlines, storeTimeoutMs, call) : result;
  };

  /** One delivery: its stages in order, then the answer (which the hooks hear). Never rejects. */
  async function receive({ method, signature, body, request, keepAlive }: Delivery): Promise<Answer> {
    const record = hookSets && new DeliveryRecord(hookSets); // hooks: onReceive
    if (method !== 'POST') return answer(record, refusalAnswer('method_not_allowed'));
    if (typeof body === 'string') return answer(record, refuse(BODY_REFUSALS[body], request, record));
    // Stage secret (secrets.ts): the signing secrets, or why there are none.
    let keys: string[];
    try {
      // Known secrets come at once: no promise to wait for on every delivery.
      const read = secrets.read();
      keys = isThenable(read) ? await read : read;
    } catch (error) {
      return answer(record, noSecret(error as MissingSecretError, record));
    }
    const event = await check(body, signature, keys, record);
    if (event instanceof Refusal) return answer(record, refuse(event, request, record));
    const duplicate = await claim(event, record);
    if (duplicate) return answer(record, duplicate);
    const failed = await (inbox ? putInInbox(event, body, record) : deliver(event));
    return answer(record, failed ?? (await recordDone(event.delivery_id, keepAlive)));
  }

  /** No secret to check against: 500 with the fix (secrets.ts logged it, once a minute); the service retries meanwhile. */
  const noSecret = ({ message }: MissingSecretError, record?: DeliveryRecord): Answer => {
    record?.failed('no_secret');
    // Only the source's own MissingSecretError comes here: its message names the fix, never a secret.
    return [500, message];
  };

  /**
   * Stage check: the event, or why it was refused. A signature that matches none of the secrets may
   * be a rotation: a secret function is read again (at most once a minute), and the delivery checked
   * once more against what it answers.
   */
  const check = async (body: Uint8Array, signature: unknown, keys: string[], record?: DeliveryRecord) => {
    // hooks: onVerified, once the signature and envelope checked out, before the timestamp
    const checked = await checkDelivery(hmac, body, signature, keys, tolerance, record);
    if (checked instanceof Refusal && checked.reason === 'invalid_signature') {
      const rotated = await secrets.reread();
      if (rotated) return checkDelivery(hmac, body, signature, rotated, tolerance, record);
    }
    return checked;
  };

  /** A refused delivery: onVerificationError hears it (its errors ignored), the sender gets the table's answer. */
  const refuse = (refusal: Refusal | WebhookRejectReason, request: () => Request, record?: DeliveryRecord): Answer => {
    const reason = typeof refusal === 'string' ? refusal : refusal.reason;
    record?.refused(reason);
    try {
      onVerificationError?.(reason, request());
    } catch {
      // A logging hook must not change the answer.
    }
    // Only the payload's problem is sent: it names the field, never a value; the others say their reason.
    return refusalAnswer(reason, reason === 'invalid_payload' ? (refusal as Refusal).problem : undefined);
  };

  /** Stage claim: `undefined` once the delivery is ours to run; else the answer: 200 for one processed before, 409 for one running elsewhere, 500 for a store that failed. */
  const claim = async (event: WebhookEvent, record?: DeliveryRecord): Promise<Answer | undefined> => {
    if (!store) return undefined;
    let state: ClaimResult;
    try {
      state = (await callStore('claim', event.delivery_id)) as ClaimResult;
    } catch (error) {
      // The store is down or silent: refuse rather than risk processing twice; the service retries.
      return storeFailed(error, event);
    }
    if (state === 'claimed') return undefined;
    record?.duplicate(state);
    return state === 'done' ? OK : IN_PROGRESS;
  };

  /**
   * Stage on: delivers the verified event to on(event), its claim kept while it runs. `undefined`
   * once it resolved; 500 when it threw (onError hears why, never the sender: it may hold internals),
   * its claim released, so the service's retry runs it. The one place an event is handed over.
   */
  const deliver = async (event: WebhookEvent): Promise<Answer | undefined> => {
    let lease: ReturnType<typeof setInterval> | undefined;
    try {
      const running = on!(event);
      // A synchronous on() needs no lease, and costs no timer.
      if (isThenable(running)) {
        lease = holdClaim(event);
        await running;
      }
      return undefined;
    } catch (failure) {
      await settle(() => onError(failure, event));
      await settle(() => store && callStore('release', event.delivery_id));
      return HANDLER_FAILED;
    } finally {
      clearInterval(lease);
    }
  };

  /**
   * Stage on, with an inbox: puts the verified delivery in it (the body as received, keyed by its
   * delivery_id) under storeTimeoutMs. `undefined` once it is stored, so the answer is 2xx only then;
   * 500 when the inbox failed or did not answer (onError hears why; the claim, if any, released):
   * the service retries, and a retry of a delivery stored already adds nothing.
   */
  const putInInbox = async (event: WebhookEvent, body: Uint8Array, record?: DeliveryRecord): Promise<Answer | undefined> => {
    try {
      const entry = { deliveryId: event.delivery_id, kind: event.event, body: textOf(body), receivedAt: Date.now() };
      await withDeadline(inbox!.put(entry), storeDeadlines, storeTimeoutMs, 'put');
      record?.stored();
      return undefined;
    } catch (failure) {
      const error = failure instanceof StoreTimeoutError ? new Error(`[svc-sdk] webhook inbox: put() did not answer within ${storeTimeoutMs} ms (storeTimeoutMs)`) : failure;
      await settle(() => onError(error, event));
      await settle(() => store && callStore('release', event.delivery_id));
      return INBOX_FAILED;
    }
  };

  /**
   * Keeps the claim of a running on() alive: renewed every third of processingTtlMs, so an on()
   * slower than processingTtlMs never runs twice beside itself (a receiver that crashes stops
   * renewing: its claim expires). A renewal that fails or misses storeTimeoutMs, or finds the claim
   * gone, is reported to onError, once: past processingTtlMs, a retry may run on() beside this one.
   */
  const holdClaim = (event: WebhookEvent) => {
    if (!store?.renew) return undefined;
    const id = event.delivery_id;
    let reported = false;
    const lost = (cause: unknown) => {
      if (reported) return;
      reported = true;
      const message = `[svc-sdk] webhook delivery ${id}: its claim could not be renewed while on() ran (${cause instanceof Error ? cause.name : 'the store no longer held it'}); once it expires (processingTtlMs), a retry may run on() beside this one`;
      void settle(() => onError(new Error(message, { cause }), event));
    };
    const renew = async () => {
      try {
        if ((await callStore('renew', id)) === false) lost(undefined);
      } catch (error) {
        lost(error);
      }
    };
    return setInterval(() => void renew(), renewEveryMs);
  };

  /**
   * Stage record: marks the processed delivery done, and answers 200 even if that fails (the claim
   * then expires, and a retry, if any, is processed again, which beats the service retrying for
   * hours). Where the runtime outlives the answer (keepAlive), the answer goes at once and the
   * recording carries on.
   */
  const recordDone = async (id: string, keepAlive?: (recording: Promise<unknown>) => void): Promise<Answer> => {
    let recorded;
    try {
      recorded = store && callStore('complete', id);
    } catch {
      return OK;
    }
    // Recorded already (the memory store): nothing to keep alive.
    if (!isThenable(recorded)) return OK;
    const recording = settle(() => recorded);
    if (keepAlive) {
      try {
        keepAlive(recording);
        return OK;
      } catch {
        // A waitUntil that throws (ctx.waitUntil passed unbound): wait for the recording here instead.
      }
    }
    await recording;
    return OK;
  };

  /** A store that failed or missed its deadline: onError hears it; a claim that may land late is released. */
  const storeFailed = (error: unknown, event: WebhookEvent): Answer => {
    void settle(() => onError(error, event));
    // A paused Redis runs the queued claim once it wakes: the release queued behind it removes it,
    // so the service's retry is not answered 409 for processingTtlMs.
    if (error instanceof StoreTimeoutError) void settle(() => callStore('release', event.delivery_id));
    return STORE_FAILED;
  };

  return { receive, maxBodyBytes, bodyTimeoutMs, waitUntil };
}

const UTF8 = /* @__PURE__ */ new TextDecoder();

/** A body's bytes as text (an inbox stores text; a delivery is JSON, so UTF-8). */
function textOf(body: Uint8Array): string {
  return UTF8.decode(body);
}

/** Whether `value` is a promise or any other thenable. */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function';
}

/** The answer, reported to the delivery's hooks (onOutcome) when it has a record. */
function answer(record: DeliveryRecord | undefined, reply: Answer): Answer {
  record?.finish(reply);
  return reply;
}

/** Runs a step whose failure must not change the answer: waits for it, and ignores what it throws or rejects with. */
async function settle(step: () => unknown): Promise<void> {
  try {
    await step();
  } catch {
    // Ignored: the answer is decided already.
  }
}

/** Throws a `[svc-sdk] createWebhookHandler:` error naming the first bad option and its fix. */
function checkOptions(options: WebhookHandlerOptions, store: DedupeStore | undefined): void {
  const { secret, on, inbox, dedupe = inbox === undefined, maxBodyBytes = 1, tolerance = DEFAULT_TOLERANCE_MS, storeTimeoutMs = 1, secretTimeoutMs = 1, bodyTimeoutMs = 1, waitUntil } = options ?? {};
  // In order: the first that is wrong is named.
  const problems: Array<[wrong: boolean, problem: string | undefined]> = [
    [true, malformedSecret(secret)],
    [on !== undefined && inbox !== undefined, 'on and inbox are exclusive: with an inbox, workers run on (inbox.process(on)); pass one of them'],
    [inbox === undefined && typeof on !== 'function', 'on must be a function (or pass an inbox)'],
    [inbox !== undefined && typeof inbox?.put !== 'function', 'inbox must have a put(entry) method (bullmqInbox(...), cloudflareQueueInbox(queue))'],
    [dedupe !== false && typeof store?.claim !== 'function', 'dedupe must be true, false or a DedupeStore'],
    [!(maxBodyBytes > 0), 'maxBodyBytes must be a number of bytes > 0'],
    [!isTolerance(tolerance), 'tolerance must be a number of ms >= 0, or false'],
    [!isDelay(storeTimeoutMs), 'storeTimeoutMs must be a number of ms > 0'],
    [!isDelay(secretTimeoutMs), 'secretTimeoutMs must be a number of ms > 0'],
    [!isDelay(bodyTimeoutMs), 'bodyTimeoutMs must be a number of ms > 0'],
    [waitUntil !== undefined && typeof waitUntil !== 'function', 'waitUntil must be a function'],
    [
      tolerance !== false && tolerance + FUTURE_SKEW_MS > (store?.ttlMs ?? Infinity),
      "tolerance + 5 minutes must not exceed the dedupe store's ttlMs (a replay would outlive its id)",
    ],
  ];
  const problem = problems.find(([wrong, text]) => wrong && text)?.[1];
  if (problem) throw new TypeError(`[svc-sdk] createWebhookHandler: ${problem}`);
}

/** Whether `ms` is a usable timer delay: a number > 0 within setTimeout's own limit (a longer delay fires at once). */
export function isDelay(ms: unknown): boolean {
  return typeof ms === 'number' && ms > 0 && ms <= 2_147_483_647;
}

function logError(error: unknown, event: WebhookEvent): void {
  console.error(`[svc-sdk] webhook delivery ${event.delivery_id} failed, answered 500 (the service retries)`, error);
}
