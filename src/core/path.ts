// A `..` segment, spelled plainly or percent-encoded (`%2e`), between slashes (a URL parser also
// reads `\` as `/`) or at either end of the path.
const DOT_DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){2}(?:[/\\]|$)/i;

/**
 * Whether a path relative to `/api/v1` would climb out of it: a URL parser resolves `..` and
 * `%2e%2e` segments, so `/../admin` would call `/admin`. The query and fragment are not looked at.
 */
export function climbsOut(path: string): boolean {
  const end = path.search(/[?#]/);
  return DOT_DOT_SEGMENT.test(end === -1 ? path : path.slice(0, end));
}
