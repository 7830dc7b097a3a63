/**
 * The service's throttling headers, read in one place: how long it asks a retry to wait
 * (`retryDelayOf`) and the limits it announces (`rateLimitOf`, exposed as `rateLimit`).
 *
 * Read: `retry-after-ms` (milliseconds, as openai's and Azure's services send), `Retry-After`
 * (seconds or an HTTP date), the IETF draft's `RateLimit` / `RateLimit-Policy` (the structured
 * form of draft 08 and later, `"default";r=50;t=30`, and the dictionary of drafts 03 to 07,
 * `limit=100, remaining=50, reset=30`), `RateLimit-Limit` / `-Remaining` / `-Reset` and the
 * `X-RateLimit-*` family. Each is parsed by the small subset of structured fields (RFC 9651)
 * these drafts use: a runtime dependency for it would be the SDK's second.
 */

/** The limits a service announced on an answer; each field `undefined` when no header said it. */
export interface RateLimitInfo {
  /** Requests allowed per window: `RateLimit-Policy`'s `q`, `RateLimit-Limit`, `X-RateLimit-Limit`. */
  readonly limit: number | undefined;
  /** Requests left in the current window: `RateLimit`'s `r`, `RateLimit-Remaining`, `X-RateLimit-Remaining`. */
  readonly remaining: number | undefined;
  /** Milliseconds until the window resets (a reset sent as a Unix time is turned into a delay). */
  readonly resetMs: number | undefined;
  /** The window's length in milliseconds: `RateLimit-Policy`'s `w`. */
  readonly windowMs: number | undefined;
  /** The name of the policy these figures are from (`"default"`), when the service names it. */
  readonly policy: string | undefined;
  /** Milliseconds the service asked to wait before the next request: `retry-after-ms`, then `Retry-After`. */
  readonly retryAfterMs: number | undefined;
}

/** A number of seconds this large is a Unix time, not a delay (the same cut ky makes: 2024-01-01). */
const UNIX_TIME_FROM = Date.parse('2024-01-01') / 1000;

const DIGITS = /^\d+$/;
const DECIMAL = /^\d+(?:\.\d+)?$/;

/**
 * A whole number of 0 or more, or `undefined` for anything else (a sign, a unit, text, no value: `String()` of
 * `null` and `undefined` is no number). Values come trimmed: a header's by `Headers`, a member's by `unquote`.
 */
function wholeNumber(value: string | null | undefined): number | undefined {
  return DIGITS.test(String(value)) ? Number(value) : undefined;
}

/** Seconds until a reset, sent as a delay or (past `UNIX_TIME_FROM`) as a Unix time, in milliseconds. */
function resetDelay(seconds: number | undefined, now: number): number | undefined {
  if (seconds === undefined) return undefined;
  return seconds >= UNIX_TIME_FROM ? Math.max(0, seconds * 1000 - now) : seconds * 1000;
}

/** `Retry-After`: delay seconds, or an HTTP date (any form `Date.parse` reads), as milliseconds from now. */
function retryAfter(value: string | null, now: number): number | undefined {
  const seconds = wholeNumber(value);
  if (seconds !== undefined) return seconds * 1000;
  // No header: Date.parse('null') is NaN.
  const at = Date.parse(String(value));
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** `retry-after-ms`, then `Retry-After`: what the service asked a retry to wait, in milliseconds. */
function askedWait(headers: Headers, now: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (DECIMAL.test(String(ms))) return Number(ms);
  return retryAfter(headers.get('retry-after'), now);
}

/** One member of a structured list or dictionary: its bare value (a name, a key) and its parameters. */
interface Member {
  readonly value: string;
  /** For a dictionary member (`limit=100`), the value after `=`. */
  readonly assigned: string | undefined;
  readonly params: ReadonlyMap<string, string>;
}

/** Splits `text` at `separator`, except inside double quotes (a policy name may hold a comma). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\\' && quoted) index++;
    else if (char === '"') quoted = !quoted;
    else if (char === separator && !quoted) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** A name as sent: a quoted string unquoted, a token as it is. */
function unquote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1).replace(/\\(.)/g, '$1') : trimmed;
}

/** The members of a structured list or dictionary header (`"a";r=1;t=2, "b";r=3` or `limit=1, remaining=0`). */
function membersOf(header: string | null): Member[] {
  if (header === null) return [];
  return splitOutsideQuotes(header, ',').flatMap((member): Member[] => {
    const [head, ...rest] = splitOutsideQuotes(member, ';');
    // A split has at least one part (the whole text when it holds no separator).
    const text = head!.trim();
    if (text === '') return [];
    const params = new Map<string, string>();
    for (const param of rest) {
      const at = param.indexOf('=');
      if (at > 0) params.set(param.slice(0, at).trim().toLowerCase(), unquote(param.slice(at + 1)));
    }
    const equals = text.startsWith('"') ? -1 : text.indexOf('=');
    return equals > 0
      ? [{ value: text.slice(0, equals).trim().toLowerCase(), assigned: unquote(text.slice(equals + 1)), params }]
      : [{ value: unquote(text), assigned: undefined, params }];
  });
}

/** The figures of the `RateLimit` and `RateLimit-Policy` fields, of either generation of the draft. */
function draftFigures(headers: Headers): { limit?: number; remaining?: number; reset?: number; window?: number; policy?: string } {
  const limits = membersOf(headers.get('ratelimit'));
  const policies = membersOf(headers.get('ratelimit-policy'));
  // Drafts 03-07: one dictionary, `limit=100, remaining=50, reset=30`; the policy an item `100;w=60`.
  if (limits.some((member) => member.assigned !== undefined)) {
    const field = (name: string) => wholeNumber(limits.find((member) => member.value === name)?.assigned);
    return { limit: field('limit'), remaining: field('remaining'), reset: field('reset'), window: wholeNumber(policies[0]?.params.get('w')) };
  }
  // Draft 08 on: a list of policies, each `"name";r=<remaining>;t=<reset>`, described by `"name";q=<quota>;w=<window>`.
  // Several policies at once (a burst and a daily one): the one with the fewest requests left is the one that binds.
  let binding: Member | undefined;
  for (const member of limits) {
    const remaining = wholeNumber(member.params.get('r'));
    if (remaining === undefined) continue;
    if (binding === undefined || remaining < wholeNumber(binding.params.get('r'))!) binding = member;
  }
  const policy = binding ? policies.find((member) => member.value === binding.value) : policies[0];
  return {
    limit: wholeNumber(policy?.params.get('q')),
    remaining: wholeNumber(binding?.params.get('r')),
    reset: wholeNumber(binding?.params.get('t')),
    window: wholeNumber(policy?.params.get('w')),
    policy: (binding ?? policy)?.value,
  };
}

/** The limits announced by an answer's headers, or `undefined` when it carries none of the throttling headers. */
export function rateLimitOf(headers: Headers, now: number = Date.now()): RateLimitInfo | undefined {
  const draft = draftFigures(headers);
  const limit = draft.limit ?? wholeNumber(headers.get('ratelimit-limit')) ?? wholeNumber(headers.get('x-ratelimit-limit'));
  const remaining = draft.remaining ?? wholeNumber(headers.get('ratelimit-remaining')) ?? wholeNumber(headers.get('x-ratelimit-remaining'));
  const resetMs = resetDelay(draft.reset ?? wholeNumber(headers.get('ratelimit-reset')) ?? wholeNumber(headers.get('x-ratelimit-reset')), now);
  const windowMs = draft.window === undefined ? undefined : draft.window * 1000;
  const retryAfterMs = askedWait(headers, now);
  if (limit === undefined && remaining === undefined && resetMs === undefined && windowMs === undefined && retryAfterMs === undefined) return undefined;
  return { limit, remaining, resetMs, windowMs, policy: draft.policy, retryAfterMs };
}

/**
 * How long the service asked before a retry, in milliseconds, or `undefined` when it did not say:
 * `retry-after-ms`, `Retry-After`, then (a throttled answer without either) when its window resets.
 */
export function retryDelayOf(headers: Headers, now: number = Date.now()): number | undefined {
  const asked = askedWait(headers, now);
  if (asked !== undefined) return asked;
  const info = rateLimitOf(headers, now);
  // A window with requests left says nothing about waiting; one with none left resets when the service is ready again.
  return info?.resetMs !== undefined && (info.remaining === undefined || info.remaining === 0) ? info.resetMs : undefined;
}
