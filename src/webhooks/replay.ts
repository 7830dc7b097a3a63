// The replay window: the envelope's `timestamp` is signed with the body, so a captured delivery
// cannot be re-stamped; one older than the tolerance is refused (check-delivery.ts checks it). The
// dedupe store remembers ids for longer than tolerance + FUTURE_SKEW_MS, so inside the window a
// replay is a known duplicate.

/** Whether a `tolerance` option is usable: `false` (no window) or a number of ms >= 0. */
export function isTolerance(tolerance: unknown): tolerance is number | false {
  return tolerance === false || (typeof tolerance === 'number' && tolerance >= 0);
}
