// The receiver: what the handler does with one delivery whose body was read already, whatever
// carried it. `createWebhookHandler` serves it as a fetch handler (handler.ts) and `toNodeListener`
// as a Node `(req, res)` listener (node-listener.ts): the same object, so both answer alike.
/*
 * One delivery, top to bottom (each step a function below, in this order):
 *   1. receive        the method (405) and a body that was too large, stalled or failed (413, 408, 400)
 *   2. withSecrets    the signing secrets, resolved at the first delivery (500 naming the fix while missing)
 *   3. checkDelivery  signature, envelope, timestamp (check-delivery.ts: 401 or 400)
 *   4. claim          the delivery_id claimed in the dedupe store (already done: 200; being processed: 409)
 *   5. runOn          on(event), its claim renewed while it runs (it threw: claim released, 500)
 *   6. record         the delivery marked done in the store, then 200
 * Every store call has a deadline (storeTimeoutMs): past it, the answer is 500 as for a store error.
 * Every refusal (1 and 3) reaches onVerificationError. With `hooks`, each delivery has a record
 * (hooks.ts) that hears the stages at the `// hooks:` call sites and reports the answer, unchanged.
 */
import { checkDelivery, Refusal } from './check-delivery.js';
import { coarseDeadlines } from './deadlines.js';
import { memoryStore } from './dedupe-memory.js';
import { PROCESSING_TTL_MS, type ClaimResult, type DedupeStore } from './dedupe.js';
import type { WebhookEvent } from './events.js';
import type { WebhookHandlerOptions, WebhookRejectReason } from './handler.js';
// hooks: receiver hooks and the per-delivery record they read
import { observeDeliveries, webhookHookSets, type DeliveryRecord, type ObservedReceive } from './hooks.js';
import { DEFAULT_TOLERANCE_MS, FUTURE_SKEW_MS, isTolerance } from './replay.js';
import { malformedSecret, secretResolver, type MissingSecretError } from './secrets.js';
import { isThenable, next, settle, StoreTimeoutError, withDeadline } from './steps.js';
import type { HmacVerify } from './verify.js';

/** What the receiver answers: a status, and for anything but success its error and extra headers. */
export type Answer = [status: number, error?: string, headers?: Record<string, string>];

/** Why no body could be had: it passed `maxBodyBytes`, it failed (the sender went away), or it did not arrive within `bodyTimeoutMs`. */
export type BodyFailure = 'too_large' | 'unreadable' | 'timeout';

/**
 * The receiver's work on one delivery. `body`: the raw bytes, or why there are none. `request`
 * makes the fetch `Request` that `onVerificationError` hears. `keepAlive`: when given, the answer
 * does not wait for the store to record completion, and the recording's promise is handed to it (a
 * Node server outlives its answers; a serverless runtime needs its `waitUntil`); without it, or when
 * it throws, the answer waits. The answer is given at once when every step was synchronous
 * (node:crypto, the memory store, a synchronous `on`), as a promise otherwise.
 */
export type Receive = (
  method: string | undefined,
  signature: unknown,
  body: Uint8Array | BodyFailure,
  request: () => Request,
  keepAlive?: (recording: Promise<unknown>) => void,
) => Answer | Promise<Answer>;

/** One handler's receiver, shared by its fetch handler and `toNodeListener`. */
export interface Receiver {
  /** The work on one delivery. */
  receive: Receive;
  /** The largest body read, in bytes. */
  maxBodyBytes: number;
  /** The handler's `waitUntil`, for the fetch handler. */
  waitUntil: ((promise: Promise<unknown>) => void) | undefined;
}

const OK: Answer = [200];
const METHOD_NOT_ALLOWED: Answer = [405, 'method_not_allowed', { allow: 'POST' }];
// Being processed by another request right now: the service may come back in a minute.
const IN_PROGRESS: Answer = [409, 'delivery_in_progress', { 'retry-after': '60' }];
const HANDLER_FAILED: Answer = [500, 'handler_failed'];
const STORE_FAILED: Answer = [500, 'dedupe_store_failed'];

const BODY_REFUSALS: Record<BodyFailure, WebhookRejectReason> = {
  too_large: 'body_too_large',
  unreadable: 'unreadable_body',
  timeout: 'body_timeout',
};
const STATUS: Partial<Record<WebhookRejectReason, number>> = {
  body_too_large: 413,
  body_timeout: 408,
  missing_signature: 401,
  invalid_signature: 401,
};

/** The receiver of `createWebhookHandler(options)` over an HMAC back end; throws a clear error for bad options. */
export function createReceiver(hmac: HmacVerify, options: WebhookHandlerOptions): Receiver {
  const {
    secret,
    on,
    dedupe = true,
    onError = logError,
    maxBodyBytes = 1_048_576,
    tolerance = DEFAULT_TOLERANCE_MS,
    storeTimeoutMs = 2000,
    onVerificationError,
    waitUntil,
    hooks,
  } = options ?? ({} as WebhookHandlerOptions);
  const store = dedupe === true ? memoryStore() : dedupe || undefined;
  checkOptions(options, store);
  const hookSets = webhookHookSets(hooks); // hooks: checked after the other options (a TypeError)
  const secrets = secretResolver(secret);
  // How often a running on()'s claim is renewed: three times per processingTtlMs, so one late renewal never loses it.
  const renewEveryMs = Math.max(1, (store?.processingTtlMs ?? PROCESSING_TTL_MS) / 3);

  // hooks: `delivery`, the delivery's record when there are hooks, hears the stages below
  const receiveDelivery: ObservedReceive = (method, signature, body, request, keepAlive, delivery) => {
    if (method !== 'POST') return METHOD_NOT_ALLOWED;
    if (typeof body === 'string') return refuse(BODY_REFUSALS[body], request, delivery);
    return withSecrets(
      (list) =>
        next(
          // hooks: verified once the signature and envelope checked out, before the timestamp
          () => checkDelivery(hmac, body, signature, list, tolerance, delivery && ((event) => delivery.verified(event))),
          (checked) => (checked instanceof Refusal ? refuse(checked, request, delivery) : claim(checked, keepAlive, delivery)),
        ),
      delivery,
    );
  };
  // hooks: with hooks, each delivery gets a record and its answer is reported (toNodeListener shares this receive)
  const receive: Receive = hookSets ? observeDeliveries(hookSets, receiveDelivery) : receiveDelivery;

  // One timer for every store call pending, not one per call (deadlines.ts).
  const storeDeadlines = coarseDeadlines(storeTimeoutMs);
  /** Calls one method of the store, by its name (the name a timeout's message gives), under storeTimeoutMs. */
  const callStore = (call: 'claim' | 'complete' | 'release' | 'renew', id: string) =>
    withDeadline<unknown>(store![call]!(id), storeDeadlines, storeTimeoutMs, call);

  /** Runs `proceed` with the usable secrets; while there are none, answers 500 with the fix and logs it. */
  const withSecrets = (proceed: (secrets: string[]) => Answer | Promise<Answer>, delivery?: DeliveryRecord) =>
    next(secrets, proceed, (error): Answer => {
      delivery?.failed('no_secret'); // hooks:
      // Only the resolver's own MissingSecretError comes here: its message names the fix, never a secret.
      const { message } = error as MissingSecretError;
      // A setup error, not a bad delivery: the operator must see it; the service retries meanwhile.
      console.error(message);
      return [500, message];
    });

  /** A refused delivery: onVerificationError hears it (its errors ignored), the sender gets the status. */
  const refuse = (refusal: Refusal | WebhookRejectReason, request: () => Request, delivery?: DeliveryRecord): Answer => {
    const reason = typeof refusal === 'string' ? refusal : refusal.reason;
    delivery?.refused(reason); // hooks:
    try {
      onVerificationError?.(reason, request());
    } catch {
      // A logging hook must not change the answer.
    }
    // Only the payload's message is sent: it names the field, never a value; the others say their reason.
    return [STATUS[reason] ?? 400, reason === 'invalid_payload' ? (refusal as Refusal).problem! : reason];
  };

  /** Claims the delivery in the dedupe store: a new one runs, a processed one is acknowledged, a running one waits. */
  const claim = (event: WebhookEvent, keepAlive?: (recording: Promise<unknown>) => void, delivery?: DeliveryRecord) => {
    if (!store) return runOn(event, keepAlive);
    const id = event.delivery_id;
    return next(
      () => callStore('claim', id) as ClaimResult | Promise<ClaimResult>,
      (state) => {
        if (state === 'claimed') return runOn(event, keepAlive);
        delivery?.duplicate(state); // hooks:
        return state === 'done' ? OK : IN_PROGRESS;
      },
      // The store is down or silent: refuse rather than risk processing twice; the service retries.
      (error) => storeFailed(error, event),
    );
  };

  /** Runs on(event) with its claim kept alive; a failure releases the claim, so the service's retry runs it. */
  const runOn = (event: WebhookEvent, keepAlive?: (recording: Promise<unknown>) => void) =>
    next(
      () => holdClaim(on(event), event.delivery_id),
      () => record(event.delivery_id, keepAlive),
      async (failure): Promise<Answer> => {
        // The error goes to onError, not into the answer: it may hold internals.
        await settle(() => onError(failure, event));
        await settle(() => store && callStore('release', event.delivery_id));
        return HANDLER_FAILED;
      },
    );

  /**
   * Keeps the claim of a running on() alive: renewed every third of processingTtlMs until it settles
   * (a synchronous on() needs none), so an on() slower than processingTtlMs never runs twice beside
   * itself; a receiver that crashes stops renewing, and its claim expires after processingTtlMs.
   */
  const holdClaim = (running: unknown, id: string): unknown => {
    if (!isThenable(running) || !store?.renew) return running;
    const timer = setInterval(() => void settle(() => callStore('renew', id)), renewEveryMs);
    return Promise.resolve(running).finally(() => clearInterval(timer));
  };

  /**
   * Marks the processed delivery done, and answers 200 even if that fails (the claim then expires,
   * and a retry, if any, is processed again, which beats the service retrying for hours). Where the
   * runtime outlives the answer (keepAlive), the answer goes at once and the recording carries on.
   */
  const record = (id: string, keepAlive?: (recording: Promise<unknown>) => void): Answer | Promise<Answer> => {
    const recording = settle(() => store && callStore('complete', id));
    if (!recording) return OK;
    if (keepAlive) {
      try {
        keepAlive(recording);
        return OK;
      } catch {
        // A waitUntil that throws (ctx.waitUntil passed unbound): wait for the recording here instead.
      }
    }
    return recording.then(() => OK);
  };

  /** A store that failed or missed its deadline: onError hears it; a claim that may land late is released. */
  const storeFailed = (error: unknown, event: WebhookEvent): Answer => {
    void settle(() => onError(error, event));
    // A paused Redis runs the queued claim once it wakes: the release queued behind it removes it,
    // so the service's retry is not answered 409 for processingTtlMs.
    if (error instanceof StoreTimeoutError) void settle(() => callStore('release', event.delivery_id));
    return STORE_FAILED;
  };

  return { receive, maxBodyBytes, waitUntil };
}

/** Throws a `[svc-sdk] createWebhookHandler:` error naming the first bad option and its fix. */
function checkOptions(options: WebhookHandlerOptions, store: DedupeStore | undefined): void {
  const { secret, on, dedupe = true, maxBodyBytes = 1, tolerance = DEFAULT_TOLERANCE_MS, storeTimeoutMs = 1, waitUntil } = options ?? {};
  // In order: the first that is wrong is named.
  const problems: Array<[wrong: boolean, problem: string | undefined]> = [
    [true, malformedSecret(secret)],
    [typeof on !== 'function', 'on must be a function'],
    [dedupe !== false && typeof store?.claim !== 'function', 'dedupe must be true, false or a DedupeStore'],
    [!(maxBodyBytes > 0), 'maxBodyBytes must be a number of bytes > 0'],
    [!isTolerance(tolerance), 'tolerance must be a number of ms >= 0, or false'],
    // setTimeout's own limit: a longer delay fires at once.
    [!(typeof storeTimeoutMs === 'number' && storeTimeoutMs > 0 && storeTimeoutMs <= 2_147_483_647), 'storeTimeoutMs must be a number of ms > 0'],
    [waitUntil !== undefined && typeof waitUntil !== 'function', 'waitUntil must be a function'],
    [
      tolerance !== false && tolerance + FUTURE_SKEW_MS > (store?.ttlMs ?? Infinity),
      "tolerance + 5 minutes must not exceed the dedupe store's ttlMs (a replay would outlive its id)",
    ],
  ];
  const problem = problems.find(([wrong, text]) => wrong && text)?.[1];
  if (problem) throw new TypeError(`[svc-sdk] createWebhookHandler: ${problem}`);
}

function logError(error: unknown, event: WebhookEvent): void {
  console.error(`[svc-sdk] webhook delivery ${event.delivery_id} failed, answered 500 (the service retries)`, error);
}
