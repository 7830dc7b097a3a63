// The one redaction rule: what of a URL, a body or a text is a credential, for every place the SDK
// shows one (log lines, spans and metrics, error messages and bodies). Logs, spans and errors differ
// only in the marker they write (`[redacted]`; `REDACTED` in `url.full`, as OpenTelemetry's
// conventions ask), never in what they hide.
//
// Module of no imports: the client, `svc-sdk/otel` and the webhooks can all use it.

/** What a redacted value is shown as in log lines and errors. */
export const REDACTED = '[redacted]';

// A name is split into its words (`X-Goog-Signature`, `accessToken`, `auth[token]`, `AWSAccessKeyId`) and
// is a credential when one word holds one of these stems (`tokens`, `client_secret`, `passwd`, `sessionid`)…
const CREDENTIAL_STEM = /token|secret|passw|signature|credential|session|sessid|jwt|apikey|accesskey|privatekey|authoriz|bearer|cookie/;
// …or is one of these short words, which would be too eager as stems (`sig` in `design`, `key` in `keyword`,
// `code` in `barcode`, `sid` in `inside`). `code` is an OAuth grant in a URL; `pass`, `pwd` and `pw` passwords.
const CREDENTIAL_WORD = new Set(['key', 'sig', 'sid', 'code', 'auth', 'pass', 'pwd', 'pw', 'otp', 'ticket', 'nonce', 'hmac']);
// Word breaks: anything but a letter or a digit; and a lower-case letter or digit followed by an upper-case
// one, marked with a space first (no lookbehind: Safari before 16.4 cannot parse one).
const CAMEL_BREAK = /([a-z0-9])([A-Z])/g;
const WORD_BREAK = /[^A-Za-z0-9]+/;

/**
 * Whether a query parameter (or a body field) named `name` holds a credential: one of its words
 * holds `token`, `secret`, `passw`, `signature`, `credential`, `session`, `jwt`, `apikey`, … or is
 * `key`, `sig`, `sid`, `code`, `auth`, `pass`, `pwd`, `otp`, … (any case, any separator).
 */
export function isCredentialName(name: string): boolean {
  for (const word of name.replace(CAMEL_BREAK, '$1 $2').split(WORD_BREAK)) {
    const lower = word.toLowerCase();
    if (CREDENTIAL_WORD.has(lower) || CREDENTIAL_STEM.test(lower)) return true;
  }
  return false;
}

// A value that is a credential whatever it is called: the SDK's API keys (`vdr_…`), webhook signing
// secrets (`whsec_…`), a signature header's value (`sha256=<hex>`), a bearer token.
const SECRET_VALUE = /\b(?:vdr|whsec)_[\w.~+/=-]+|\bsha256=[0-9a-f]{16,}|\bBearer\s+[\w.~+/=-]+/gi;
// The same, for a test (a global regex keeps its lastIndex between `test` calls; `replace` starts afresh).
const HAS_SECRET_VALUE = new RegExp(SECRET_VALUE.source, 'i');

/** Whether `text` holds an API key (`vdr_…`), a signing secret (`whsec_…`), a signature (`sha256=…`) or a bearer token. */
export function hasSecretValue(text: string): boolean {
  return HAS_SECRET_VALUE.test(text);
}

/** `text` with every API key, signing secret, signature and bearer token in it replaced by `marker`. */
export function redactSecretValues(text: string, marker: string = REDACTED): string {
  return text.replace(SECRET_VALUE, marker);
}

/**
 * A URL (absolute, or a path with its query) as the SDK shows it: `user:password@` replaced by
 * `marker:marker@`, and in its query and fragment the value of every parameter named like a
 * credential (`isCredentialName`), or holding a secret-looking value, replaced by `marker`. The rest
 * is kept byte for byte, as written (nothing re-encoded); a URL with nothing to hide is returned as is.
 */
export function redactUrl(url: string, marker: string = REDACTED): string {
  const queryStart = url.search(QUERY_START);
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const safePath = redactUserInfo(path, marker);
  if (queryStart === -1) return safePath;
  const query = url.slice(queryStart);
  // Most queries (`?deal_id=7&page=2`) hold nothing any credential name or secret value could: kept whole without a walk.
  return safePath + (MAY_HOLD_CREDENTIAL.test(query) ? redactParams(query, marker) : query);
}

// Text every credential name and secret-looking value holds at least one of (a name's `%`-escapes
// included): a query without any is no credential's.
const MAY_HOLD_CREDENTIAL = /tok|secret|pass|sig|cred|sess|jwt|key|sid|code|auth|pw|otp|ticket|nonce|hmac|cookie|bearer|vdr_|whsec_|sha256|%/i;

// Where a URL's query or fragment starts, whichever comes first.
const QUERY_START = /[?#]/;

/** `scheme://user:password@host/path` → `scheme://marker:marker@host/path` (a path without an authority is kept). */
function redactUserInfo(path: string, marker: string): string {
  const authorityStart = path.indexOf('//');
  if (authorityStart === -1) return path;
  const slash = path.indexOf('/', authorityStart + 2);
  const authorityEnd = slash === -1 ? path.length : slash;
  const at = path.lastIndexOf('@', authorityEnd - 1);
  if (at < authorityStart) return path;
  const hasPassword = path.slice(authorityStart + 2, at).includes(':');
  return `${path.slice(0, authorityStart + 2)}${marker}${hasPassword ? `:${marker}` : ''}${path.slice(at)}`;
}

/** `?a=1&token=x#code=y` with the credentials' values replaced; separators and other pairs as written. */
function redactParams(query: string, marker: string): string {
  // Split at the separators, kept in the result: `?`, `#`, `&` and `;`.
  return query.replace(/([?#&;])([^?#&;]*)/g, (whole, separator: string, pair: string) => {
    const equals = pair.indexOf('=');
    // A pair without `=` is a name alone, or a bare token (`?vdr_…`): hidden whole when it looks secret.
    if (equals === -1) return hasSecretValue(decodeName(pair)) ? `${separator}${marker}` : whole;
    const value = pair.slice(equals + 1);
    if (!isCredentialName(decodeName(pair.slice(0, equals))) && !hasSecretValue(decodeName(value))) return whole;
    return `${separator}${pair.slice(0, equals)}=${marker}`;
  });
}

/** A query parameter's name (or value), decoded; a malformed escape is left as written. */
function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** The most a body is walked: deeper than any answer of the service, and not worth the risk. */
const MAX_DEPTH = 16;

/**
 * A body (parsed JSON, or text) as an error keeps it: the value of every field named like a
 * credential (`secret`, `new_secret`, `signing_key`, `token`, `password`, …) and every
 * secret-looking string (`whsec_…`, `vdr_…`) replaced by `marker`; the rest kept, so a refusal
 * still says why (`error`, `message`, `detail`, per-field messages). A field named `code` is kept: in a
 * body it is the service's error code. Text keeps its words, with `"secret": "…"`-like pairs and
 * secret-looking values replaced. Nested deeper than 16 levels, a branch is replaced whole.
 */
export function redactBody(body: unknown, marker: string = REDACTED): unknown {
  return redactTree(body, marker, redactText, 0);
}

/**
 * A body with every string replaced by `marker` (keys, numbers, booleans and nulls kept): for a
 * successful answer of an operation that returns a secret, where the secret may sit under any name.
 */
export function redactEveryString(body: unknown, marker: string = REDACTED): unknown {
  return redactTree(body, marker, () => marker, 0);
}

/** The walk of both: a copy of `body`, each string as `text` makes it, each credential field's value `marker`, a branch past MAX_DEPTH `marker` whole. */
function redactTree(body: unknown, marker: string, text: (value: string, marker: string) => string, depth: number): unknown {
  if (typeof body === 'string') return text(body, marker);
  if (typeof body !== 'object' || body === null) return body;
  if (depth > MAX_DEPTH) return marker;
  if (Array.isArray(body)) return body.map((item) => redactTree(item, marker, text, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) copy[key] = isSecretField(key) ? marker : redactTree(value, marker, text, depth + 1);
  return copy;
}

/** A field whose value is hidden whole: named like a credential, but `code` (in a body, the service's error code). */
function isSecretField(key: string): boolean {
  return key.toLowerCase() !== 'code' && isCredentialName(key);
}

// `"secret": "…"`, `"signing_key":"…"` in a text that did not parse as JSON (a cut answer): the value
// up to its closing quote, or to the end when the text was cut inside it.
const QUOTED_PAIR = /("([^"\\]*)"\s*:\s*)"(?:[^"\\]|\\.)*"?/g;

/** A text with the values of its credential-named `"name": "value"` pairs and its secret-looking values replaced. */
function redactText(text: string, marker: string): string {
  const pairs = text.includes('"') ? text.replace(QUOTED_PAIR, (whole, head: string, name: string) => (isSecretField(name) ? `${head}"${marker}"` : whole)) : text;
  return redactSecretValues(pairs, marker);
}

// A path segment that names one thing: an id (digits), a uuid, or an opaque token (16 or more letters,
// digits, `_` and `-`, a digit among them), such as a share link's key: a capability as much as an id.
const ID_SEGMENT = /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?=[\w-]*\d)[\w-]{16,})$/i;
// A segment that may be one: starting with a digit, or long. `/api/v1/rooms/{room_id}` is not looked at again.
const MAY_HOLD_ID = /\/(?:\d|[^/{]{16})/;

/**
 * A path (or an operation named after one) as a span name or a metric's series shows it: its query
 * and fragment cut, and each segment that is an id, a uuid or an opaque token shown as `{id}`
 * (`GET /share/3f2c…` → `GET /share/{id}`): one series per route, and no capability in a name.
 */
export function templatePath(path: string): string {
  const end = path.search(QUERY_START);
  const bare = end === -1 ? path : path.slice(0, end);
  return MAY_HOLD_ID.test(bare) ? bare.split('/').map((segment) => (ID_SEGMENT.test(segment) ? '{id}' : segment)).join('/') : bare;
}

// A URL inside a text: a scheme, `://` and what follows up to a space, a quote or a bracket.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}]+/gi;

/**
 * `text` with every URL in it redacted as `redactUrl` does (`redis://:pw@host` → `redis://[redacted]:[redacted]@host`,
 * credentials in queries hidden) and every secret-looking value replaced: for messages that quote what they were given.
 */
export function redactUrlsInText(text: string, marker: string = REDACTED): string {
  return redactSecretValues(text.includes('://') ? text.replace(URL_IN_TEXT, (url) => redactUrl(url, marker)) : text, marker);
}
