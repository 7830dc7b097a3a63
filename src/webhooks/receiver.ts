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
 *            put in it instead (stores.ts: stored, or 500 'inbox_failed'), and workers run on later.
 *   record   the delivery marked done in the store, then 200
 * Every wait has a deadline: the secret function (secretTimeoutMs), every store call (storeTimeoutMs),
 * the body (bodyTimeoutMs, in the adapters). Every refusal is answered from refusals.ts and reaches
 * onVerificationError. With `hooks`, the delivery's record (hooks.ts) hears the stages and the answer.
 * What a default handler (clean secrets, on(), no hooks, the memory store) never runs is in modules
 * loaded only by a handler that needs them (secrets.ts, hooks.ts, stores.ts): see `loading` below.
 */
import type { Refusal } from './check-delivery.js';
import type { ClaimResult } from './dedupe.js';
import type { WebhookEvent } from './events.js';
import type { DeliveryRecord } from './hooks.js';
import type { ReceiverParts } from './receiver-parts.js';
import type { MissingSecretError, SecretSource } from './secrets.js';
import type { inboxStage } from './stores.js';
import type { Answer, Delivery, HmacVerify, Receiver, WebhookHandlerOptions, WebhookHooks, WebhookRejectReason } from './types.js';

const OK: Answer = [200];
// Being processed by another request right now: the service may come back in a minute.
const IN_PROGRESS: Answer = [409, 'delivery_in_progress', { 'retry-after': '60' }];
const HANDLER_FAILED: Answer = [500, 'handler_failed'];
const STORE_FAILED: Answer = [500, 'dedupe_store_failed'];

/**
 * The receiver of `createWebhookHandler(options)` over an HMAC back end: its `receive`. The options
 * were checked by the handler (options.ts), which passes their hook sets along, and the parts the
 * receiver shares with the rest of the entry (receiver-parts.ts: why they are handed over).
 */
export function createReceiver(
  parts: ReceiverParts,
  hmac: HmacVerify,
  options: WebhookHandlerOptions,
  hookSets: readonly WebhookHooks[] | undefined,
): Receiver['receive'] {
  const {
    secret,
    on,
    inbox,
    // With an inbox, its key (delivery_id) deduplicates: no store of our own unless one is given.
    dedupe = inbox === undefined,
    onError = logError,
    tolerance, // undefined: the default (timestampProblem's, in check-delivery.ts)
    storeTimeoutMs = 2000,
    secretTimeoutMs = 5000,
    onVerificationError,
  } = options;
  const { checkDelivery, Refusal, coarseDeadlines, memoryStore, PROCESSING_TTL_MS, malformedSecret, BODY_REFUSALS, refusalAnswer } = parts;
  const store = dedupe === true ? memoryStore() : dedupe || undefined;
  // How often a running on()'s claim is renewed: three times per processingTtlMs, so one late renewal never loses it.
  const renewEveryMs = Math.max(1, (store?.processingTtlMs ?? PROCESSING_TTL_MS) / 3);
  // One timer for every store call pending, not one per call (deadlines.ts).
  const storeDeadlines = coarseDeadlines(storeTimeoutMs);
  // Parts a default handler (clean secrets, on(), no hooks, the memory store) never runs are
  // loaded only by a handler that needs them, once, when it is made: the first delivery awaits
  // what is still on its way, the later ones find it loaded (no promise to wait for per delivery).
  // Clean secrets given are used as they are; secrets.ts reads the others (a function under
  // secretTimeoutMs, SVC_WEBHOOK_SECRET, a given secret trimmed with a warning).
  const list = secret === undefined || typeof secret === 'function' ? undefined : [secret].flat();
  const known = list?.every((key) => key === key.trim()) ? list : undefined;
  let secrets: SecretSource | undefined;
  let Record: typeof DeliveryRecord | undefined;
  let stores: typeof import('./stores.js') | undefined;
  let putInInbox: ReturnType<typeof inboxStage> | undefined;
  const loading = Promise.all([
    known || import('./secrets.js').then((module) => (secrets = module.secretSource(secret, secretTimeoutMs, malformedSecret))),
    hookSets && import('./hooks.js').then((module) => (Record = module.DeliveryRecord)),
    // A store given (Redis?) or an inbox may answer late: their calls get storeTimeoutMs (stores.ts).
    (inbox || (store && dedupe !== true)) &&
      import('./stores.js').then((module) => {
        stores = module;
        if (inbox) putInInbox = module.inboxStage(inbox, storeDeadlines, storeTimeoutMs, failed);
      }),
  ]);
  // Awaited by the first delivery; a module that could not load fails the delivery (500), not the process.
  let loaded = false;
  loading.then(() => (loaded = true), () => {});
  /**
   * Calls one method of the store, by its name (the name a timeout's message gives), and maps its
   * outcome: `settled(result)`, or `failed(error)` when it throws, rejects or (unless `unbounded`,
   * for a call nobody waits for) misses storeTimeoutMs. At once when the store answers at once (the
   * memory store); else a promise.
   */
  const callStore = <A>(
    call: 'claim' | 'complete' | 'release' | 'renew',
    id: string,
    settled: (result: never) => A,
    failed: (error: unknown) => A,
    unbounded?: boolean,
  ): A | Promise<Awaited<A>> => {
    let result: unknown;
    try {
      result = store![call]!(id);
    } catch (error) {
      return failed(error);
    }
    if (!isThenable(result)) return settled(result as never);
    // stores.ts is loaded for any store but the default memory one, which never returns a promise.
    if (unbounded || !stores) return Promise.resolve(result as Promise<never>).then(settled, failed) as Promise<Awaited<A>>;
    return stores.withDeadline(result as never, storeDeadlines, storeTimeoutMs, call, settled, failed);
  };

  /** One delivery: its stages in order, then the answer (which the hooks hear). Never rejects. */
  async function receive({ method, signature, body, request, keepAlive }: Delivery): Promise<Answer> {
    if (!loaded) {
      try {
        await loading;
      } catch {
        return HANDLER_FAILED;
      }
    }
    const record = Record && new Record(hookSets!); // hooks: onReceive
    if (method !== 'POST') return answer(record, refusalAnswer('method_not_allowed'));
    if (typeof body === 'string') return answer(record, refuse(BODY_REFUSALS[body], request, record));
    // Stage secret: the signing secrets, or why there are none.
    let keys = known;
    if (!keys) {
      try {
        // Known secrets come at once: no promise to wait for on every delivery.
        const read = secrets!.read();
        keys = isThenable(read) ? await read : read;
      } catch (error) {
        return answer(record, noSecret(error as MissingSecretError, record));
      }
    }
    // Each stage answers at once when its work is synchronous (node:crypto, the memory store, a
    // synchronous on()): only a promise is awaited, so the common path costs no turn per stage.
    const checked = check(body, signature, keys, record);
    const event = isThenable(checked) ? await checked : checked;
    if (event instanceof Refusal) return answer(record, refuse(event, request, record));
    const claimed = claim(event, record);
    const duplicate = isThenable(claimed) ? await claimed : claimed;
    if (duplicate) return answer(record, duplicate);
    const ran = putInInbox ? putInInbox(event, body, record) : deliver(event);
    const failure = isThenable(ran) ? await ran : ran;
    if (failure) return answer(record, failure);
    const recorded = recordDone(event.delivery_id, keepAlive);
    return answer(record, isThenable(recorded) ? await recorded : recorded);
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
  const check = (body: Uint8Array, signature: unknown, keys: string[], record?: DeliveryRecord) => {
    // hooks: onVerified, once the signature and envelope checked out, before the timestamp
    const checked = checkDelivery(hmac, body, signature, keys, tolerance, record);
    const rotation = async (refused: WebhookEvent | Refusal) => {
      const rotated = await secrets!.reread();
      return rotated ? checkDelivery(hmac, body, signature, rotated, tolerance, record) : refused;
    };
    const reread = (result: WebhookEvent | Refusal) =>
      result instanceof Refusal && result.reason === 'invalid_signature' && secrets ? rotation(result) : result;
    return isThenable(checked) ? checked.then(reread) : reread(checked);
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
  const claim = (event: WebhookEvent, record?: DeliveryRecord): Answer | undefined | Promise<Answer | undefined> => {
    if (!store) return undefined;
    // The store is down or silent: refuse rather than risk processing twice; the service retries.
    const down = (error: unknown) => storeFailed(error, event);
    const claimed = (state: ClaimResult): Answer | undefined => {
      if (state === 'claimed') return undefined;
      record?.duplicate(state);
      return state === 'done' ? OK : IN_PROGRESS;
    };
    return callStore('claim', event.delivery_id, claimed, down);
  };

  /**
   * Stage on: delivers the verified event to on(event), its claim kept while it runs. `undefined`
   * once it resolved; 500 when it threw (onError hears why, never the sender: it may hold internals),
   * its claim released, so the service's retry runs it. The one place an event is handed over.
   */
  const deliver = (event: WebhookEvent): Answer | undefined | Promise<Answer | undefined> => {
    const fail = async (failure: unknown) => {
      await failed(failure, event);
      return HANDLER_FAILED;
    };
    let running;
    try {
      running = on!(event);
    } catch (failure) {
      return fail(failure);
    }
    // A synchronous on() is done: it needs no lease, and costs no timer nor promise.
    if (!isThenable(running)) return undefined;
    const lease = holdClaim(event);
    return Promise.resolve(running).then(
      () => void clearInterval(lease),
      (failure: unknown) => {
        clearInterval(lease);
        return fail(failure);
      },
    );
  };

  /** A delivery that failed in stage on: onError hears why, and its claim, if any, is released (the service's retry runs it). */
  async function failed(failure: unknown, event: WebhookEvent): Promise<void> {
    await settle(() => onError(failure, event));
    if (store) await callStore('release', event.delivery_id, ignore, ignore);
  }

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
    const renewed = (held: boolean | void) => held === false && lost(undefined);
    return setInterval(() => void callStore('renew', id, renewed, lost), renewEveryMs);
  };

  /**
   * Stage record: marks the processed delivery done, and answers 200 even if that fails (the claim
   * then expires, and a retry, if any, is processed again, which beats the service retrying for
   * hours). Where the runtime outlives the answer (keepAlive), the answer goes at once and the
   * recording carries on: a Node server's with no deadline (nobody waits for it, and a delivery's
   * store calls are its hot path), a `waitUntil`'s within storeTimeoutMs.
   */
  const recordDone = (id: string, keepAlive: Delivery['keepAlive']): Answer | PromiseLike<Answer> => {
    // Answered 200 whatever the store says: a failure is ignored (it settles the recording all the same).
    const outlived = keepAlive === 'process';
    const recording = store && callStore('complete', id, ignore, ignore, outlived);
    // Recorded already (the memory store), or left to finish by a server that outlives its answers.
    if (!isThenable(recording) || outlived) return OK;
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
    if (stores && error instanceof stores.StoreTimeoutError) void callStore('release', event.delivery_id, ignore, ignore);
    return STORE_FAILED;
  };

  return receive;
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

/** What a store call's outcome is mapped to when nothing depends on it. */
function ignore(): void {}

/** Runs a step whose failure must not change the answer: waits for it, and ignores what it throws or rejects with. */
async function settle(step: () => unknown): Promise<void> {
  try {
    await step();
  } catch {
    // Ignored: the answer is decided already.
  }
}

function logError(error: unknown, event: WebhookEvent): void {
  console.error(`[svc-sdk] webhook delivery ${event.delivery_id} failed, answered 500 (the service retries)`, error);
}
