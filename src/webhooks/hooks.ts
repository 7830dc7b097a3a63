// Receiver hooks: the per-delivery record the receiver's stages fill in (receiver.ts); their check
// is options.ts's, their public types are in types.ts. A handler without hooks makes no record
// (every call site is an optional call on `undefined`).
//
// The hooks observe; they cannot change an answer. What one throws (or rejects with) is ignored,
// as `onVerificationError`'s and `onError`'s are (`ignoreFailure`, which the receiver runs them
// with): a metrics exporter that fails must not make the service retry.
import type { ClaimResult } from './dedupe.js';
import type { WebhookEvent } from './events.js';
import type { Answer, DeliveryInfo, DeliveryOutcome, WebhookHooks, WebhookRejectReason } from './types.js';

/** One delivery's record: the handler's call sites fill it in, `finish` reports the outcome. */
export class DeliveryRecord implements DeliveryInfo {
  readonly startedAt = performance.now();
  event: WebhookEvent | undefined;
  readonly #sets: readonly WebhookHooks[];
  #reason: DeliveryOutcome['reason'];
  #dedupe: DeliveryOutcome['dedupe'];
  #failure: DeliveryOutcome['failure'];
  #stored = false;

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

  /** Put in the handler's inbox (answered 200 once stored): its outcome is `stored`, not `processed`. */
  stored(): void {
    this.#stored = true;
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
      outcome: dedupe ? 'duplicate' : reason ? 'refused' : status === 200 ? (this.#stored ? 'stored' : 'processed') : 'failed',
      status,
      // The handler's answers to a failure name it: 'handler_failed' or 'dedupe_store_failed'.
      ...(dedupe ? { dedupe } : reason ? { reason } : status === 200 ? {} : { failure: this.#failure ?? (error as DeliveryOutcome['failure']) }),
      durationMs,
    };
    for (const set of this.#sets) if (set.onOutcome) ignoreFailure(() => set.onOutcome!(outcome));
  }
}

/**
 * Runs an observer (a hook, `onVerificationError`, `onError`): what it throws, or a promise it
 * returns rejects with, is ignored. That promise, settled either way, for a caller that waits for
 * the observer; else `undefined`.
 */
export function ignoreFailure(observe: () => unknown): PromiseLike<unknown> | undefined {
  try {
    const result = observe();
    if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') return (result as PromiseLike<unknown>).then(undefined, () => undefined);
  } catch {
    // An observer must not change the answer.
  }
  return undefined;
}
