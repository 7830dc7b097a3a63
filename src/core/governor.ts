/**
 * The client's governor: every attempt (a call, a retry, an upload, a page of a list) waits here for
 * a slot of `maxConcurrency`, then for its turn under `maxRequestsPerSecond`, then for a shared
 * limiter's permit (a fleet's, through Redis) before it is sent. The wait is inside the attempt, so
 * it counts against the call's `timeout` and its signal cancels it. A throttled answer's asked wait
 * (`pause`) holds every send of the client back, not only the retry of that one call.
 */

import { sleep } from '../shared/sleep.js';

/**
 * A limit several processes share (`svc-sdk/limits`' `redisRateLimiter`, or your own): `acquire`
 * resolves when one more request may be sent, and rejects when `signal` aborts.
 */
export interface SharedLimiter {
  /**
   * Resolves when one more request may be sent; rejects when `signal` aborts.
   *
   * @param signal The call's own signal (its timeout or the caller's cancel): waiting ends with it.
   */
  acquire(signal: AbortSignal): Promise<void>;
}

/** What the governor enforces; each unset part is no limit. */
export interface GovernorSettings {
  readonly maxConcurrency?: number | undefined;
  readonly maxRequestsPerSecond?: number | undefined;
  readonly limiter?: SharedLimiter | undefined;
}

interface Waiter {
  resolve: () => void;
}

/** One client's limits on what it sends; made only when the client sets one of them. */
export class Governor {
  readonly #maxConcurrency: number;
  /** Milliseconds between two sends (0: no rate). */
  readonly #intervalMs: number;
  readonly #limiter: SharedLimiter | undefined;
  /** Attempts holding a slot (sending, or waiting for their turn under the rate). */
  #active = 0;
  /** Attempts waiting for a slot, first come first served. */
  readonly #waiting: Waiter[] = [];
  /** `performance.now()` of the next free turn under the rate. */
  #nextAt = 0;
  /** `performance.now()` before which nothing is sent (the service asked to wait). */
  #pausedUntil = 0;
  /** `maxConcurrency 4, 10 requests a second`: how error messages name the limits. */
  readonly description: string;

  constructor(settings: GovernorSettings) {
    this.#maxConcurrency = settings.maxConcurrency ?? Infinity;
    this.#intervalMs = settings.maxRequestsPerSecond ? 1000 / settings.maxRequestsPerSecond : 0;
    this.#limiter = settings.limiter;
    const parts: string[] = [];
    if (settings.maxConcurrency !== undefined) parts.push(`maxConcurrency ${settings.maxConcurrency}`);
    if (settings.maxRequestsPerSecond !== undefined) parts.push(`maxRequestsPerSecond ${settings.maxRequestsPerSecond}`);
    if (settings.limiter) parts.push('a shared limiter');
    this.description = parts.join(', ');
  }

  /** Waits until this attempt may be sent; `leave()` must follow once it has ended, whatever happened. */
  async enter(signal: AbortSignal): Promise<void> {
    if (this.#active < this.#maxConcurrency && this.#waiting.length === 0) this.#active++;
    else await this.#queue(signal);
    try {
      const now = performance.now();
      // A turn is reserved at once, so the calls waiting keep their order and the rate holds without a timer each.
      const at = Math.max(now, this.#nextAt, this.#pausedUntil);
      if (this.#intervalMs) this.#nextAt = at + this.#intervalMs;
      if (at > now) await sleep(at - now, signal);
      if (this.#limiter) await this.#limiter.acquire(signal);
    } catch (error) {
      this.leave();
      throw error;
    }
  }

  /** The attempt that entered has ended: its slot goes to the next one waiting. */
  leave(): void {
    const next = this.#waiting.shift();
    // The slot passes on as it is (`#active` unchanged), so no newcomer takes it first.
    if (next) next.resolve();
    else this.#active--;
  }

  /** The service asked to wait `ms` (a 429's Retry-After or reset): nothing is sent before then. */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms);
  }

  /** Waits for a slot handed over by `leave()`; a signal that aborts first takes the waiter out of the line. */
  #queue(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const waiter: Waiter = {
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index !== -1) this.#waiting.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }
}

/** What is wrong with the governor's options of a client, one issue each. */
export function governorIssues(settings: { maxConcurrency?: unknown; maxRequestsPerSecond?: unknown; limiter?: unknown }): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  const { maxConcurrency, maxRequestsPerSecond, limiter } = settings;
  if (maxConcurrency !== undefined && !(Number.isSafeInteger(maxConcurrency) && (maxConcurrency as number) >= 1)) {
    issues.push({ path: ['maxConcurrency'], message: 'maxConcurrency must be a whole number of requests at once, 1 or more' });
  }
  if (maxRequestsPerSecond !== undefined && !(typeof maxRequestsPerSecond === 'number' && maxRequestsPerSecond > 0 && maxRequestsPerSecond <= 1_000_000)) {
    issues.push({ path: ['maxRequestsPerSecond'], message: 'maxRequestsPerSecond must be a number of requests a second above 0 (0.5 is one every 2 s)' });
  }
  if (limiter !== undefined && typeof (limiter as { acquire?: unknown } | null)?.acquire !== 'function') {
    issues.push({ path: ['limiter'], message: "limiter must have an acquire(signal) method, as svc-sdk/limits' redisRateLimiter() returns" });
  }
  return issues;
}
