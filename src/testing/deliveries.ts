import { signPayload } from '../webhooks/index.js';
import type { EventKind } from '../webhooks/event-kinds.js';
import { buildEventBody } from './events.js';

/** One attempt the emulator made to deliver an event to an endpoint. */
export interface DeliveryAttempt {
  webhookId: number;
  deliveryId: string;
  event: EventKind;
  /** 1 to 6. */
  attempt: number;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** Why the attempt failed on the network, when it did. */
  error?: string;
  /** True for a 2xx answer. */
  ok: boolean;
  /** When the attempt finished (ISO 8601). */
  at: string;
}

/** What the scheduler needs to know of an endpoint at send time (its url and secret may change). */
export interface DeliveryTarget {
  id: number;
  url: string;
  secret: string;
  failure_count: number;
  deleted?: boolean;
}

/** A delivery the scheduler accepted: the endpoint it goes to and its stable delivery_id. */
export interface ScheduledDelivery {
  webhookId: number;
  deliveryId: string;
}

interface SchedulerOptions {
  deliveryDelayMs: number;
  retryDelaysMs: readonly number[];
  onAttempt?: ((attempt: DeliveryAttempt) => void) | undefined;
}

/** How long one attempt may wait for the receiver before it counts as a network failure. */
const ATTEMPT_TIMEOUT_MS = 30_000;

/**
 * Sends signed deliveries on the spec's schedule: first after `deliveryDelayMs`, then after each
 * of `retryDelaysMs` while attempts fail. Plain `setTimeout`, so fake timers can walk the schedule.
 */
export class DeliveryScheduler {
  readonly attempts: DeliveryAttempt[] = [];
  readonly #options: SchedulerOptions;
  readonly #timers = new Map<ReturnType<typeof setTimeout>, number>(); // timer → due time
  readonly #listeners = new Set<() => void>();
  #inFlight = 0;
  #generation = 0;

  constructor(options: SchedulerOptions) {
    this.#options = options;
  }

  /** Schedules one delivery of `kind` to `target`; the body (and delivery_id) is fixed now. */
  deliver(target: DeliveryTarget, kind: EventKind, data: Record<string, unknown>): ScheduledDelivery {
    const deliveryId = crypto.randomUUID();
    const body = buildEventBody(kind, data, deliveryId);
    this.#schedule(this.#options.deliveryDelayMs, () => this.#attempt(target, kind, deliveryId, body, 1));
    return { webhookId: target.id, deliveryId };
  }

  /** True while an attempt is being sent or one is scheduled within `horizonMs` from now. */
  isBusy(horizonMs: number): boolean {
    if (this.#inFlight > 0) return true;
    const limit = Date.now() + horizonMs;
    for (const due of this.#timers.values()) if (due <= limit) return true;
    return false;
  }

  /** Calls `listener` after every change (attempt started, finished, scheduled); returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Cancels every scheduled attempt and forgets the recorded ones; attempts in flight are dropped. */
  reset(): void {
    for (const timer of this.#timers.keys()) clearTimeout(timer);
    this.#timers.clear();
    this.attempts.length = 0;
    this.#inFlight = 0;
    this.#generation += 1;
    this.#notify();
  }

  #schedule(delayMs: number, run: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void run();
    }, delayMs);
    // A pending retry (up to 8 h away) must not keep a test run or a script alive.
    (timer as { unref?: () => void }).unref?.();
    this.#timers.set(timer, Date.now() + delayMs);
    this.#notify();
  }

  async #attempt(target: DeliveryTarget, kind: EventKind, deliveryId: string, body: string, attempt: number): Promise<void> {
    if (target.deleted) return;
    const generation = this.#generation;
    this.#inFlight += 1;
    this.#notify();
    let status: number | undefined;
    let error: string | undefined;
    try {
      // Signed with the secret current at send time: a rotation applies to pending retries too.
      const signature = await signPayload(body, target.secret);
      const response = await fetch(target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-signature': signature, 'user-agent': 'svc-sdk-emulator' },
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        redirect: 'manual',
      });
      status = response.status;
      await response.body?.cancel().catch(() => undefined);
    } catch (cause) {
      error = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    }
    if (generation !== this.#generation) return; // reset() while this attempt was out: forget it
    this.#inFlight -= 1;
    const ok = status !== undefined && status >= 200 && status < 300;
    const record: DeliveryAttempt = { webhookId: target.id, deliveryId, event: kind, attempt, ok, at: new Date().toISOString() };
    if (status !== undefined) record.status = status;
    if (error !== undefined) record.error = error;
    this.attempts.push(record);
    this.#options.onAttempt?.(record);
    if (!ok) {
      const delay = this.#options.retryDelaysMs[attempt - 1];
      if (delay === undefined) target.failure_count += 1; // the final attempt failed: the delivery is failed
      else this.#schedule(delay, () => this.#attempt(target, kind, deliveryId, body, attempt + 1));
    }
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
