// Receiver hooks: their public types, their check, and the per-delivery record the handler fills in
// at a few `// hooks:` call sites (receiver.ts). A handler without hooks makes no record: every call
// site is an optional call on `undefined`.
//
// The hooks observe; they cannot change an answer. What one throws (or rejects with) is ignored,
// as `onVerificationError`'s is: a metrics exporter that fails must not make the service retry.
import type { WebhookEvent } from './events.js';
import type { WebhookRejectReason } from './handler.js';
import type { Answer, Receive } from './receiver.js';
import type { ClaimResult } from './dedupe.js';

/** How a delivery ended. */
export type DeliveryOutcomeKind = 'processed' | 'duplicate' | 'refused' | 'failed';

/** What every receiver hook of one delivery is told: the same object for all of them (a `WeakMap` key). */
export interface DeliveryInfo {
  /** When the handler started on it: `performance.now()` (milliseconds). */
  readonly startedAt: number;
  /** The event, once its signature and payload checked out; `undefined` before (and for a refused one). */
  readonly event: WebhookEvent | undefined;
}

/** How one delivery ended, and how long the handler took. */
export interface DeliveryOutcome {
  readonly delivery: DeliveryInfo;
  readonly outcome: DeliveryOutcomeKind;
  /** The HTTP status answered. */
  readonly status: number;
  /** Why it was refused (`outcome: 'refused'`): a `WebhookRejectReason`, or `'method_not_allowed'` for anything but a POST. */
  readonly reason?: WebhookRejectReason | 'method_not_allowed' | undefined;
  /** For `outcome: 'duplicate'`: `'done'` (processed before, acknowledged) or `'processing'` (in progress elsewhere, answered 409). */
  readonly dedupe?: Exclude<ClaimResult, 'claimed'> | undefined;
  /**
   * For `outcome: 'failed'`: `'handler_failed'` (`on` threw, answered 500), `'dedupe_store_failed'`
   * (the store failed or missed `storeTimeoutMs`), or `'no_secret'` (no signing secret configured yet, answered 500).
   */
  readonly failure?: 'handler_failed' | 'dedupe_store_failed' | 'no_secret' | undefined;
  /** Milliseconds from the delivery's arrival (its body read) to the answer. */
  readonly durationMs: number;
}

/**
 * Hooks of `createWebhookHandler({ hooks })` (one set or an array of sets, run in order): they
 * observe each delivery, from its arrival to its answer, and cannot change it; what they throw is
 * ignored. `svc-sdk/otel`'s `webhookTelemetry()` makes a set.
 *
 * @example
 * ```ts
 * import { createWebhookHandler, type WebhookHooks } from 'svc-sdk/webhooks';
 *
 * const metrics: WebhookHooks = {
 *   onOutcome: ({ outcome, reason, durationMs, delivery }) => {
 *     console.log(delivery.event?.delivery_id, outcome, reason ?? '', `${durationMs.toFixed(1)} ms`);
 *   },
 * };
 * export const POST = createWebhookHandler({
 *   secret: process.env.SVC_WEBHOOK_SECRET!,
 *   on: async (event) => console.log(event.event),
 *   hooks: metrics,
 * });
 * ```
 */
export interface WebhookHooks {
  /** A delivery arrived (its body read, nothing checked yet). */
  onReceive?: ((delivery: DeliveryInfo) => void) | undefined;
  /** Its signature and payload checked out: `delivery.event` is set (the replay window and dedupe come next). */
  onVerified?: ((delivery: DeliveryInfo & { readonly event: WebhookEvent }) => void) | undefined;
  /** The answer is decided: the outcome, its reason and the time taken. */
  onOutcome?: ((outcome: DeliveryOutcome) => void) | undefined;
}

/** The `hooks` option of `createWebhookHandler`: one set, or several run in order. */
export type WebhookHooksOption = WebhookHooks | readonly WebhookHooks[];

const HOOK_NAMES = ['onReceive', 'onVerified', 'onOutcome'] as const;

/** The sets of `createWebhookHandler`'s `hooks` option (`undefined`: none); a TypeError naming a bad one. */
export function webhookHookSets(option: WebhookHooksOption | undefined): readonly WebhookHooks[] | undefined {
  if (option === undefined) return undefined;
  const sets: readonly unknown[] = Array.isArray(option) ? option : [option];
  const fail = (problem: string) => new TypeError(`[svc-sdk] createWebhookHandler: ${problem}`);
  for (const set of sets) {
    if (typeof set !== 'object' || set === null || Array.isArray(set)) {
      throw fail(`hooks must be an object of hooks (${HOOK_NAMES.join(', ')}), or an array of them`);
    }
    for (const [name, hook] of Object.entries(set)) {
      if (!(HOOK_NAMES as readonly string[]).includes(name)) throw fail(`hooks.${name} is not a hook: use ${HOOK_NAMES.join(', ')}`);
      if (hook !== undefined && typeof hook !== 'function') throw fail(`hooks.${name} must be a function`);
    }
  }
  return sets.length ? (sets as readonly WebhookHooks[]) : undefined;
}

/** One delivery's record: the handler's call sites fill it in, `finish` reports the outcome. */
export class DeliveryRecord implements DeliveryInfo {
  readonly startedAt = performance.now();
  event: WebhookEvent | undefined;
  readonly #sets: readonly WebhookHooks[];
  #reason: DeliveryOutcome['reason'];
  #dedupe: DeliveryOutcome['dedupe'];
  #failure: DeliveryOutcome['failure'];

  constructor(sets: readonly WebhookHooks[]) {
    this.#sets = sets;
    for (const set of sets) if (set.onReceive) ignoreFailure(() => set.onReceive!(this));
  }

  /** The signature and payload checked out. */
  verified(event: WebhookEvent): void {
    this.event = event;
    for (const set of this.#sets) if (set.onVerified) ignoreFailure(() => set.onVerified!(this as DeliveryInfo & { event: WebhookEvent }));
  }

  /** Refused before processing, for this reason. */
  refused(reason: WebhookRejectReason): void {
    this.#reason = reason;
  }

  /** The dedupe store had it already. */
  duplicate(state: Exclude<ClaimResult, 'claimed'>): void {
    this.#dedupe = state;
  }

  /** Failed for a reason its answer does not name (a missing secret's answer names the fix instead). */
  failed(failure: 'no_secret'): void {
    this.#failure = failure;
  }

  /** The handler's answer: reports the outcome it means. */
  finish([status, error]: Answer): void {
    const durationMs = performance.now() - this.startedAt;
    const dedupe = this.#dedupe;
    const reason = status === 405 ? 'method_not_allowed' : this.#reason;
    // One literal with the one detail its outcome has (the same objects as a literal per outcome, 191 B less minified).
    const outcome: DeliveryOutcome = {
      delivery: this,
      outcome: dedupe ? 'duplicate' : reason ? 'refused' : status === 200 ? 'processed' : 'failed',
      status,
      // The handler's answers to a failure name it: 'handler_failed' or 'dedupe_store_failed'.
      ...(dedupe ? { dedupe } : reason ? { reason } : status === 200 ? {} : { failure: this.#failure ?? (error as DeliveryOutcome['failure']) }),
      durationMs,
    };
    for (const set of this.#sets) if (set.onOutcome) ignoreFailure(() => set.onOutcome!(outcome));
  }
}

/**
 * Wraps the handler's work on a delivery so that each one gets a record, and its answer (given at
 * once or as a promise) is reported. `receive` takes the record as its last argument.
 */
export function observeDeliveries(sets: readonly WebhookHooks[], receive: ObservedReceive): Receive {
  return (method, signature, body, request, keepAlive) => {
    const record = new DeliveryRecord(sets);
    const answer = receive(method, signature, body, request, keepAlive, record);
    if (Array.isArray(answer)) {
      record.finish(answer);
      return answer;
    }
    return answer.then((settled) => {
      record.finish(settled);
      return settled;
    });
  };
}

/** The handler's `Receive`, with the delivery's record (when there are hooks) as a last argument. */
export type ObservedReceive = (...args: [...Parameters<Receive>, record?: DeliveryRecord]) => ReturnType<Receive>;

/** Runs an observer; what it throws, or a promise it returns rejects with, is ignored. */
function ignoreFailure(observe: () => unknown): void {
  try {
    const result = observe();
    if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') (result as Promise<unknown>).then(undefined, () => undefined);
  } catch {
    // An observer must not change the answer.
  }
}
