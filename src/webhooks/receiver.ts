// The receiver: one delivery whose body was read already, whatever carried it. `createWebhookHandler`
// serves it as a fetch handler (handler.ts) and `toNodeListener` as a Node `(req, res)` listener
// (node-listener.ts): both call the same `receive`, so both answer alike.
/*
 * createReceiver builds one Context per handler (its options resolved, its store, secrets, hooks and
 * inbox), and each delivery goes through STAGES in order, each a function below over that context
 * and the delivery's Flight (what the stages before it found). A stage answers (the delivery ends
 * there), or returns undefined (the next stage runs), at once or as a promise: `run` is the one
 * place that tells the two apart, so a delivery whose work is synchronous (node:crypto, the memory
 * store, a synchronous on()) costs no turn of the event loop per stage.
 *   unread   the method (405) and the body (too large 413, stalled 408, failed 400)
 *   secret   the signing secrets (secrets.ts; 500 naming the fix while missing, or past secretTimeoutMs)
 *   check    signature, envelope, timestamp (check-delivery.ts: 401 or 400); a signature that matches
 *            none of a function's secrets has it read again, at most once a minute (a rotation)
 *   claim    the delivery_id claimed in the dedupe store (done already: 200; being processed: 409)
 *   hand     the verified event delivered: on(event), its claim renewed while it runs (it threw: the
 *            claim released, 500). The one place an event is handed over: with an `inbox`, the delivery is
 *            put in it instead (stores.ts: stored, or 500 'inbox_failed'), and workers run on later.
 *   record   the delivery marked done in the store, then 200
 * Every wait has a deadline: the secret function (secretTimeoutMs), every store call (storeTimeoutMs),
 * the body (bodyTimeoutMs, in the adapters). Every refusal is answered from refusals.ts and reaches
 * onVerificationError. With `hooks`, the delivery's record (hooks.ts) hears the stages and the answer.
 */
import { checkDelivery, Refusal } from './check-delivery.js';
import { coarseDeadlines, type Deadlines } from './deadlines.js';
import { PROCESSING_TTL_MS } from '../shared/limits.js';
import type { ClaimResult, DedupeStore } from './dedupe.js';
import type { WebhookEvent } from './events.js';
import { DeliveryRecord, ignoreFailure } from './hooks.js';
import type { CheckedOptions } from './options.js';
import { BODY_REFUSALS, refusalAnswer } from './refusals.js';
import { secretSource, type MissingSecretError, type SecretSource } from './secrets.js';
import { inboxStage, StoreTimeoutError, withDeadline } from './stores.js';
import type { Answer, Delivery, HmacVerify, Receiver, WebhookHandlerOptions, WebhookRejectReason } from './types.js';

const OK: Answer = [200];
// Being processed by another request right now: the service may come back in a minute.
const IN_PROGRESS: Answer = [409, 'delivery_in_progress', { 'retry-after': '60' }];
const HANDLER_FAILED: Answer = [500, 'handler_failed'];
const STORE_FAILED: Answer = [500, 'dedupe_store_failed'];

/** What every delivery of one handler shares, made once by `createReceiver`. */
interface Context {
  readonly hmac: HmacVerify;
  readonly tolerance: number | false | undefined;
  readonly secrets: SecretSource;
  readonly store: DedupeStore | undefined;
  /** Every store call's deadline, under storeTimeoutMs. */
  readonly storeDeadlines: Deadlines;
  /** How often a running on()'s claim is renewed: three times per processingTtlMs, so one late renewal never loses it. */
  readonly renewEveryMs: number;
  readonly on: WebhookHandlerOptions['on'];
  readonly onError: (error: unknown, event: WebhookEvent) => unknown;
  readonly onVerificationError: WebhookHandlerOptions['onVerificationError'];
  /** The stage hand with an inbox: the delivery put in it (stores.ts). */
  readonly putInInbox: ReturnType<typeof inboxStage> | undefined;
}

/** One delivery on its way through the stages: what the stages before found, for the next. */
interface Flight {
  readonly delivery: Delivery;
  /** The body, once stage unread has let it through. */
  body: Uint8Array;
  /** The delivery's record, with hooks (hooks.ts). */
  readonly record: DeliveryRecord | undefined;
  keys: string[];
  event: WebhookEvent;
}

/** A stage: the delivery's answer, or `undefined` for the next stage; at once or as a promise. */
type Stage = (context: Context, flight: Flight) => Answer | undefined | PromiseLike<Answer | undefined>;

/**
 * The receiver of `createWebhookHandler(options)` over an HMAC back end: its `receive`. The options
 * were checked by the handler, their defaults filled in (options.ts).
 */
export function createReceiver(hmac: HmacVerify, options: CheckedOptions): Receiver['receive'] {
  const { store, hookSets, inbox } = options;
  // One timer for every store call pending, not one per call (deadlines.ts).
  const storeDeadlines = coarseDeadlines(options.storeTimeoutMs);
  const context: Context = {
    hmac,
    tolerance: options.tolerance, // undefined: the default (timestampProblem's, in check-delivery.ts)
    // A given secret is read at once; a function under secretTimeoutMs, or SVC_WEBHOOK_SECRET (secrets.ts).
    secrets: secretSource(options.secret, options.secretTimeoutMs),
    store,
    storeDeadlines,
    renewEveryMs: Math.max(1, (store?.processingTtlMs ?? PROCESSING_TTL_MS) / 3),
    on: options.on,
    onError: options.onError ?? logError,
    onVerificationError: options.onVerificationError,
    putInInbox: inbox && inboxStage(inbox, storeDeadlines, (failure, event) => failed(context, failure, event)),
  };
  /** One delivery: its stages in order, then the answer (which the hooks hear). Never rejects. */
  return (delivery) => {
    const flight: Flight = { delivery, body: undefined!, record: hookSets && new DeliveryRecord(hookSets), keys: undefined!, event: undefined! };
    try {
      // The answer, or run's own promise as it is (Promise.resolve hands a promise back unchanged).
      return Promise.resolve(run(context, flight, 0));
    } catch {
      // No stage throws; a bug must not throw into a server's event handler either.
      return Promise.resolve(HANDLER_FAILED);
    }
  };
}

/** The stages of every delivery, in order; the last always answers. */
const STAGES: readonly Stage[] = [unread, secrets, check, claim, hand, record];

/** Runs the stages from `from` on: the first answer (the hooks hear it), at once while every stage answers at once. */
function run(context: Context, flight: Flight, from: number): Answer | Promise<Answer> {
  for (let index = from; ; index += 1) {
    const outcome = STAGES[index]!(context, flight);
    if (outcome === undefined) continue;
    return isThenable(outcome) ? resume(context, flight, outcome, index + 1) : finish(flight, outcome);
  }
}

/** Once a stage's promise settles: its answer, or the stages from `next` on. (Not a closure in run's loop: that would make a context per stage.) */
function resume(context: Context, flight: Flight, outcome: PromiseLike<Answer | undefined>, next: number): Promise<Answer> {
  return Promise.resolve(outcome).then((answer) => (answer ? finish(flight, answer) : run(context, flight, next)));
}

/** The answer, reported to the delivery's hooks (onOutcome) when it has a record. */
function finish({ record }: Flight, answer: Answer): Answer {
  record?.finish(answer);
  return answer;
}

/** Stage unread: anything but a POST (405), and a body that could not be read (413, 408, 400). */
function unread(context: Context, flight: Flight): Answer | undefined {
  const { method, body } = flight.delivery;
  if (method !== 'POST') return refusalAnswer('method_not_allowed');
  if (typeof body === 'string') return refuse(context, flight, BODY_REFUSALS[body]);
  flight.body = body;
  return undefined;
}

/** Stage secret: the signing secrets (the known ones at once), or 500 with the fix while there are none. */
function secrets({ secrets }: Context, flight: Flight): Answer | undefined | Promise<Answer | undefined> {
  // At once when known; else a promise that rejects with MissingSecretError (never a throw: a lookup is an async call).
  const read = secrets.read();
  if (!isThenable(read)) {
    flight.keys = read;
    return undefined;
  }
  return read.then(
    (keys) => void (flight.keys = keys),
    // Only the source's own MissingSecretError comes here: its message names the fix, never a secret.
    ({ message }: MissingSecretError): Answer => {
      flight.record?.failed('no_secret');
      return [500, message];
    },
  );
}

/**
 * Stage check: the event, or why it was refused. A signature that matches none of the secrets may
 * be a rotation: a secret function is read again (at most once a minute), and the delivery checked
 * once more against what it answers.
 */
function check(context: Context, flight: Flight): Answer | undefined | Promise<Answer | undefined> {
  const { hmac, tolerance, secrets } = context;
  const { body, record } = flight;
  // hooks: onVerified, once the signature and envelope checked out, before the timestamp
  const again = async (refused: Refusal) => {
    const rotated = await secrets.reread!();
    return accept(context, flight, rotated ? await checkDelivery(hmac, body, flight.delivery.signature, rotated, tolerance, record) : refused);
  };
  const checked = (result: WebhookEvent | Refusal) =>
    result instanceof Refusal && result.reason === 'invalid_signature' && secrets.reread ? again(result) : accept(context, flight, result);
  const result = checkDelivery(hmac, body, flight.delivery.signature, flight.keys, tolerance, record);
  return isThenable(result) ? result.then(checked) : checked(result);
}

/** The checked delivery: its event kept for the next stages, or its refusal answered. */
function accept(context: Context, flight: Flight, result: WebhookEvent | Refusal): Answer | undefined {
  if (result instanceof Refusal) return refuse(context, flight, result);
  flight.event = result;
  return undefined;
}

/** A refused delivery: onVerificationError hears it (what it throws or rejects with ignored), the sender gets the table's answer. */
function refuse({ onVerificationError }: Context, { delivery, record }: Flight, refusal: Refusal | WebhookRejectReason): Answer {
  const reason = typeof refusal === 'string' ? refusal : refusal.reason;
  record?.refused(reason);
  // A logging hook must not change the answer.
  if (onVerificationError) ignoreFailure(() => onVerificationError(reason, delivery.request()));
  // Only the payload's problem is sent: it names the field, never a value; the others say their reason.
  return refusalAnswer(reason, reason === 'invalid_payload' ? (refusal as Refusal).problem : undefined);
}

/** Stage claim: `undefined` once the delivery is ours to run; else the answer: 200 for one processed before, 409 for one running elsewhere, 500 for a store that failed. */
function claim(context: Context, { event, record }: Flight): Answer | undefined | Promise<Answer | undefined> {
  if (!context.store) return undefined;
  // The store is down or silent: refuse rather than risk processing twice; the service retries.
  const down = (error: unknown) => storeFailed(context, error, event);
  const claimed = (state: ClaimResult): Answer | undefined => {
    if (state === 'claimed') return undefined;
    record?.duplicate(state);
    return state === 'done' ? OK : IN_PROGRESS;
  };
  return callStore(context, 'claim', event.delivery_id, claimed, down);
}

/**
 * Stage hand: delivers the verified event to on(event), its claim kept while it runs (or, with an
 * inbox, puts the delivery in it). `undefined` once it resolved; 500 when it threw (onError hears
 * why, never the sender: it may hold internals), its claim released, so the service's retry runs it.
 */
function hand(context: Context, { event, body, record }: Flight): Answer | undefined | PromiseLike<Answer | undefined> {
  if (context.putInInbox) return context.putInInbox(event, body, record);
  const fail = async (failure: unknown) => {
    await failed(context, failure, event);
    return HANDLER_FAILED;
  };
  let running;
  try {
    running = context.on!(event);
  } catch (failure) {
    return fail(failure);
  }
  // A synchronous on() is done: it needs no lease, and costs no timer nor promise.
  if (!isThenable(running)) return undefined;
  const lease = holdClaim(context, event);
  return Promise.resolve(running).then(
    () => void clearInterval(lease),
    (failure: unknown) => {
      clearInterval(lease);
      return fail(failure);
    },
  );
}

/** A delivery that failed in stage hand: onError hears why, and its claim, if any, is released (the service's retry runs it). */
async function failed(context: Context, failure: unknown, event: WebhookEvent): Promise<void> {
  await ignoreFailure(() => context.onError(failure, event));
  if (context.store) await callStore(context, 'release', event.delivery_id, ignore, ignore);
}

/**
 * Keeps the claim of a running on() alive: renewed every third of processingTtlMs, so an on()
 * slower than processingTtlMs never runs twice beside itself (a receiver that crashes stops
 * renewing: its claim expires). A renewal that fails or misses storeTimeoutMs, or finds the claim
 * gone, is reported to onError, once: past processingTtlMs, a retry may run on() beside this one.
 */
function holdClaim(context: Context, event: WebhookEvent): ReturnType<typeof setInterval> | undefined {
  if (!context.store?.renew) return undefined;
  const id = event.delivery_id;
  let reported = false;
  const lost = (cause: unknown) => {
    if (reported) return;
    reported = true;
    const message = `[svc-sdk] webhook delivery ${id}: its claim could not be renewed while on() ran (${cause instanceof Error ? cause.name : 'the store no longer held it'}); once it expires (processingTtlMs), a retry may run on() beside this one`;
    ignoreFailure(() => context.onError(new Error(message, { cause }), event));
  };
  const renewed = (held: boolean | void) => held === false && lost(undefined);
  return setInterval(() => void callStore(context, 'renew', id, renewed, lost), context.renewEveryMs);
}

/**
 * Stage record: marks the processed delivery done, and answers 200 even if that fails (the claim
 * then expires, and a retry, if any, is processed again, which beats the service retrying for
 * hours). Where the runtime outlives the answer (keepAlive), the answer goes at once and the
 * recording carries on: a Node server's with no deadline (nobody waits for it, and a delivery's
 * store calls are its hot path), a `waitUntil`'s within storeTimeoutMs.
 */
function record(context: Context, { event, delivery: { keepAlive } }: Flight): Answer | PromiseLike<Answer> {
  // Answered 200 whatever the store says: a failure is ignored (it settles the recording all the same).
  const outlived = keepAlive === 'process';
  const recording = context.store && callStore(context, 'complete', event.delivery_id, ignore, ignore, outlived);
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
}

/** A store that failed or missed its deadline: onError hears it; a claim that may land late is released. */
function storeFailed(context: Context, error: unknown, event: WebhookEvent): Answer {
  ignoreFailure(() => context.onError(error, event));
  // A paused Redis runs the queued claim once it wakes: the release queued behind it removes it,
  // so the service's retry is not answered 409 for processingTtlMs.
  if (error instanceof StoreTimeoutError) void callStore(context, 'release', event.delivery_id, ignore, ignore);
  return STORE_FAILED;
}

/**
 * Calls one method of the store, by its name (the name a timeout's message gives), and maps its
 * outcome: `settled(result)`, or `failed(error)` when it throws, rejects or (unless `unbounded`,
 * for a call nobody waits for) misses storeTimeoutMs. At once when the store answers at once (the
 * memory store); else a promise.
 */
function callStore<A>(
  context: Context,
  call: 'claim' | 'complete' | 'release' | 'renew',
  id: string,
  settled: (result: never) => A,
  failed: (error: unknown) => A,
  unbounded?: boolean,
): A | Promise<Awaited<A>> {
  let result: unknown;
  try {
    result = context.store![call]!(id);
  } catch (error) {
    return failed(error);
  }
  if (!isThenable(result)) return settled(result as never);
  if (unbounded) return Promise.resolve(result as Promise<never>).then(settled, failed) as Promise<Awaited<A>>;
  return withDeadline(result as never, context.storeDeadlines, call, settled, failed);
}

/** Whether `value` is a promise or any other thenable. */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function';
}

/** What a store call's outcome is mapped to when nothing depends on it. */
function ignore(): void {}

function logError(error: unknown, event: WebhookEvent): void {
  console.error(`[svc-sdk] webhook delivery ${event.delivery_id} failed, answered 500 (the service retries)`, error);
}
