import { signPayload } from '../webhooks/index.js';
import type { EventKind } from '../webhooks/event-kinds.js';
import { buildEventBody } from './events.js';
import { describeFetchFailure } from '../shared/fetch-failure.js';
import type { EmulatorFaults } from './faults.js';

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
  /** When the attempt finished (ISO 8601), on the emulator's clock (moved ahead by `advance`). */
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
  /** The most attempts kept in `attempts` (the newest); older ones are dropped. Default: all. */
  maxAttempts?: number | undefined;
  /** Called each time an attempt is dropped for `maxAttempts`. */
  onDropped?: (() => void) | undefined;
  /** The delivery faults, read live at each delivery: `deliveryJitterMs`, `duplicateRate`. */
  faults?: Pick<EmulatorFaults, 'deliveryJitterMs' | 'duplicateRate'> | undefined;
}

/** How long one attempt may wait for the receiver before it counts as a network failure. */
const ATTEMPT_TIMEOUT_MS = 30_000;

/** An attempt waiting for its time: when it is due on the emulator's clock, and its real timer. */
interface Pending {
  due: number;
  run: () => Promise<void>;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Sends signed deliveries on the spec's schedule: first after `deliveryDelayMs`, then after each
 * of `retryDelaysMs` while attempts fail. Plain `setTimeout`, so fake timers can walk the schedule;
 * `advance(ms)` walks it without them, by moving the emulator's own clock ahead of the real one.
 */
export class DeliveryScheduler {
  /** The newest attempts made since the last reset, oldest first, at most `maxAttempts` of them. */
  readonly attempts: DeliveryAttempt[] = [];
  /**
   * How many attempts were made since the last reset, the dropped ones included: the position of
   * the next one, which stays meaningful to a reader (`waitForDelivery`, `advance`) while old ones go.
   */
  get recorded(): number {
    return this.#recorded;
  }

  #recorded = 0;
  #delivered = 0;
  readonly #options: SchedulerOptions;
  readonly #pending = new Set<Pending>();
  readonly #listeners = new Set<() => void>();
  #inFlight = 0;
  #generation = 0;
  /** How far `advance` has moved the emulator's clock ahead of `Date.now()`. */
  #skewMs = 0;
  /**
   * While `advance` makes an attempt, the clock stands at the attempt's due time: its record and
   * its retry's due time do not drift with the real milliseconds the receiver takes, so sums of
   * the schedule's delays (`advance(60_000 + 300_000)`) reach exactly the attempts they add up to.
   */
  #frozenAt: number | undefined;

  constructor(options: SchedulerOptions) {
    this.#options = options;
  }

  /** Schedules one delivery of `kind` to `target`; the body (and delivery_id) is fixed now. */
  deliver(target: DeliveryTarget, kind: EventKind, data: Record<string, unknown>): ScheduledDelivery {
    const deliveryId = crypto.randomUUID();
    const body = buildEventBody(kind, data, deliveryId);
    const { deliveryJitterMs = 0, duplicateRate = 0 } = this.#options.faults ?? {};
    const first = () => this.#options.deliveryDelayMs + Math.random() * deliveryJitterMs;
    this.#schedule(first(), () => this.#attempt(target, kind, deliveryId, body, 1));
    const index = this.#delivered++;
    // The same delivery sent again, as a whole chain of attempts: what a receiver's deduplication is for.
    if (Math.floor((index + 1) * duplicateRate) > Math.floor(index * duplicateRate)) this.#schedule(first(), () => this.#attempt(target, kind, deliveryId, body, 1));
    return { webhookId: target.id, deliveryId };
  }

  /** Runs `run` once the emulator's clock is `delayMs` further (walked by `advance` as attempts are); cancelled by `reset`. */
  later(delayMs: number, run: () => Promise<void>): void {
    this.#schedule(delayMs, run);
  }

  /** The emulator's clock: `Date.now()` plus every `advance` so far. */
  now(): number {
    return this.#frozenAt ?? Date.now() + this.#skewMs;
  }

  /** True while an attempt is being sent or one is scheduled within `horizonMs` from now. */
  isBusy(horizonMs: number): boolean {
    if (this.#inFlight > 0) return true;
    const limit = this.now() + horizonMs;
    for (const { due } of this.#pending) if (due <= limit) return true;
    return false;
  }

  /**
   * Moves the emulator's clock `ms` ahead and makes, in order and one at a time, every attempt due by
   * then, retries scheduled on the way included; resolves with those attempts once they are made.
   */
  async advance(ms: number): Promise<DeliveryAttempt[]> {
    await this.#idle(); // an attempt out now schedules its retry when it ends: count that retry in
    const generation = this.#generation;
    const first = this.recorded;
    const made = () => (generation === this.#generation ? this.since(first) : []);
    try {
      const target = this.now() + ms;
      for (;;) {
        if (generation !== this.#generation) return made(); // reset() meanwhile
        let next: Pending | undefined;
        for (const entry of this.#pending) if (entry.due <= target && (next === undefined || entry.due < next.due)) next = entry;
        if (next === undefined) break;
        // One reading of the clock: a millisecond ticking between two would stamp the attempt (and
        // schedule its retry) 1 ms late.
        const now = this.now();
        if (next.due > now) this.#skewMs += next.due - now;
        clearTimeout(next.timer);
        this.#pending.delete(next);
        this.#frozenAt = Math.max(next.due, now);
        try {
          await next.run();
        } finally {
          this.#frozenAt = undefined;
        }
      }
      if (target > this.now()) this.#skewMs += target - this.now();
      // What is left was armed for the old clock: re-arm it for the new one.
      for (const entry of this.#pending) this.#arm(entry);
      return made();
    } finally {
      this.#notify();
    }
  }

  /** The attempts kept that were made at or after position `first` (a value of `recorded`), oldest first. */
  since(first: number): DeliveryAttempt[] {
    return this.attempts.slice(Math.max(0, this.attempts.length - (this.recorded - first)));
  }

  /** Calls `listener` after every change (attempt started, finished, scheduled); returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Cancels every scheduled attempt and forgets the recorded ones; attempts in flight are dropped. */
  reset(): void {
    for (const { timer } of this.#pending) clearTimeout(timer);
    this.#pending.clear();
    this.attempts.length = 0;
    this.#recorded = 0;
    this.#inFlight = 0;
    this.#generation += 1;
    this.#skewMs = 0;
    this.#frozenAt = undefined;
    this.#notify();
  }

  #schedule(delayMs: number, run: () => Promise<void>): void {
    const entry: Pending = { due: this.now() + delayMs, run };
    this.#pending.add(entry);
    this.#arm(entry);
    this.#notify();
  }

  /** (Re)sets the real timer of `entry` for its due time on the emulator's clock. */
  #arm(entry: Pending): void {
    clearTimeout(entry.timer);
    const timer = setTimeout(() => {
      this.#pending.delete(entry);
      void entry.run();
    }, Math.max(0, entry.due - this.now()));
    // A pending retry (up to 8 h away) must not keep a test run or a script alive.
    (timer as { unref?: () => void }).unref?.();
    entry.timer = timer;
  }

  /** Resolves once no attempt is out. */
  #idle(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.#inFlight > 0) return;
        unsubscribe();
        resolve();
      };
      const unsubscribe = this.subscribe(check);
      check();
    });
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
      error = describeFetchFailure(cause); // `connection refused (ECONNREFUSED)…`, not undici's bare "fetch failed"
    }
    if (generation !== this.#generation) return; // reset() while this attempt was out: forget it
    this.#inFlight -= 1;
    const ok = status !== undefined && status >= 200 && status < 300;
    const record: DeliveryAttempt = { webhookId: target.id, deliveryId, event: kind, attempt, ok, at: new Date(this.now()).toISOString() };
    if (status !== undefined) record.status = status;
    if (error !== undefined) record.error = error;
    this.attempts.push(record);
    this.#recorded += 1;
    // One out per one in: a long-running emulator's attempts stay at the bound, oldest gone first.
    if (this.attempts.length > (this.#options.maxAttempts ?? Number.POSITIVE_INFINITY)) {
      this.attempts.shift();
      this.#options.onDropped?.();
    }
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
