// "Did you mean": the nearest known name to a mistyped one (a command, a flag, an event kind), by edit
// distance (fastest-levenshtein, what webpack-cli suggests with), offered only when it is near enough
// to be a typo rather than another word.
import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate nearest to `input` when it is within a typo of it (one edit per three characters of
 * the candidate, at least one and at most three), else undefined.
 */
export function nearest(input: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0 || input === '') return undefined;
  const best = closest(input, [...candidates]);
  const allowed = Math.min(3, Math.max(1, Math.floor(best.length / 3)));
  return distance(input, best) <= allowed ? best : undefined;
}

/** `did you mean "x"? ` for a message, or '' when no candidate is near `input`. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const best = nearest(input, candidates);
  return best === undefined ? '' : `did you mean "${best}"? `;
}
