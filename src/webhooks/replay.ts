// The replay window: the envelope's `timestamp` is signed with the body, so a captured delivery
// cannot be re-stamped; one older than the tolerance is refused. The dedupe store remembers ids
// for longer than tolerance + FUTURE_SKEW_MS, so inside the window a replay is a known duplicate.

/** How far ahead of this clock a delivery's timestamp may be (clock skew between hosts): 5 minutes. */
export const FUTURE_SKEW_MS = 300_000;

/** The default tolerance: 12 h, over the service's retry schedule of about 10.6 h. */
export const DEFAULT_TOLERANCE_MS = 43_200_000;

// An ISO 8601 date and time WITH its zone: `Z` or an offset. Without one, Date.parse reads the time
// as this machine's local time, so one delivery would be fresh in UTC, stale at UTC+14 and from the
// future at UTC-8; the spec says UTC, so a zoneless time is refused, whatever the machine's zone.
const ZONED_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * What is wrong with a delivery's signed `timestamp` under this tolerance (ms; the default when
 * `undefined`), or `undefined` when it is in the window or there is no window (`false`). A
 * timestamp must be ISO 8601 with `Z` or an offset (`invalid_timestamp` otherwise).
 */
export function timestampProblem(
  timestamp: string,
  tolerance: number | false = DEFAULT_TOLERANCE_MS,
): 'invalid_timestamp' | 'stale_timestamp' | 'future_timestamp' | undefined {
  const age = Date.now() - Date.parse(timestamp);
  return tolerance === false
    ? undefined
    : Number.isNaN(age) || !ZONED_ISO.test(timestamp)
      ? 'invalid_timestamp'
      : age > tolerance
        ? 'stale_timestamp'
        : age < -FUTURE_SKEW_MS
          ? 'future_timestamp'
          : undefined;
}

/** Whether a `tolerance` option is usable: `false` (no window) or a number of ms >= 0. */
export function isTolerance(tolerance: unknown): tolerance is number | false {
  return tolerance === false || (typeof tolerance === 'number' && tolerance >= 0);
}
