/**
 * Whether a failed attempt is sent again, and after how long: the one home of the retry rule. ky
 * asks it (as `shouldRetry`) once the attempt limit allows a retry; it decides by the failure, the
 * service's `x-should-retry`, and the client's retry budget, and notes on the call's state what the
 * retry costs and how long the service asked to wait (ky's `delay` reads it).
 */
import { isHTTPError, isNetworkError, isTimeoutError } from 'ky';
import { retryDelayOf } from './rate-limit.js';
import type { Governor } from './governor.js';
import type { RetryBudget, RetryKind } from './retry-budget.js';
import { MAX_RETRY_AFTER_MS } from '../shared/limits.js';

/** 408, 429 and every 5xx are retried; any other status only when the service says `x-should-retry: true`. */
const RETRYABLE_STATUSES = [408, 429];


/** Exponential backoff without the service's word: 300 ms, 600 ms, … up to 8 s (ky's schedule), jittered by the caller. */
export function backoffMs(attempt: number): number {
  return Math.min(8_000, 300 * 2 ** (attempt - 1));
}

/** What a call's state keeps of its retries (attempt.ts's CallState has these fields). */
export interface RetryState {
  /** Tokens the last retry took from the budget (given back when the call succeeds). */
  retryCost: number | undefined;
  /** Milliseconds the service asked the next retry to wait; `undefined` for the backoff. */
  retryDelayMs: number | undefined;
  /** Why a retry the attempt limit allowed was not made (an empty budget), for the call's error. */
  notRetried: string | undefined;
  /** While the attempt waits in the client's governor: its limits (`maxConcurrency 4`); `undefined` once sent. */
  queued: string | undefined;
}

/** Why an attempt failed, as a retry is priced; `undefined` when it is not retried at all. */
function kindOf(error: unknown): RetryKind | undefined {
  if (isHTTPError(error)) {
    const { status, headers } = error.response;
    // The service's word beats the status rule (openai's and stripe's header): `false` on a 503 in maintenance, `true` on a 409 lock.
    const says = headers.get('x-should-retry');
    if (says === 'false') return undefined;
    if (says !== 'true' && !(status >= 500 || RETRYABLE_STATUSES.includes(status))) return undefined;
    return status === 429 ? 'throttled' : 'server';
  }
  // ky's errors when no answer came; anything else (an answer too large, a hook that threw) is never retried.
  return isTimeoutError(error) || isNetworkError(error) ? 'timeout' : undefined;
}

/**
 * ky's `shouldRetry` for one call: true to retry (ky then waits `retryDelayMs`, or the backoff),
 * false to fail with this attempt's error. The budget's tokens are taken here, once per retry.
 */
export function decideRetry(error: unknown, state: RetryState, budget: RetryBudget | undefined, governor?: Governor): boolean {
  // A timeout in the client's own queue sent nothing: another attempt would queue again, and take budget for no load.
  if (state.queued !== undefined) return false;
  const kind = kindOf(error);
  if (kind === undefined) return false;
  if (budget) {
    const cost = budget.take(kind);
    if (cost === undefined) {
      state.notRetried =
        `not retried: the client's retry budget is empty (${budget.available} of ${budget.capacity} tokens left, a retry takes ${budget.costOf(kind)}; ` +
        'successes refill it): the service has failed often lately, so try again later, or pass a larger retryBudget';
      return false;
    }
    state.retryCost = cost;
  }
  const asked = isHTTPError(error) ? retryDelayOf(error.response.headers) : undefined;
  state.retryDelayMs = asked === undefined ? undefined : Math.min(asked, MAX_RETRY_AFTER_MS);
  // A throttled answer's wait holds back every send of the client, not only this call's retry.
  if (kind === 'throttled' && state.retryDelayMs !== undefined) governor?.pause(state.retryDelayMs);
  return true;
}
