// The client's errors, and the words of their messages: the request named (`POST /api/v1/rooms`), the
// service's own reason or a text answer described, where a connection was tried, everything
// shown through the one redaction rule (shared/redact.ts). Imported as any module is: an error
// made at any moment says the same.
import { SvcError } from '../shared/svc-error.js';
import { parseUrl } from '../shared/parse-url.js';
import { redactBody, redactEveryString, redactUrl } from '../shared/redact.js';
import { rateLimitOf, type RateLimitInfo } from './rate-limit.js';

export { SvcError };

/** One problem found by a schema: where (`path`) and what (`message`). */
export interface Issue {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
  readonly code?: string;
  /** For a value of the wrong type: the type that was expected. */
  readonly expected?: string;
}

/** What the core knows about a failed HTTP exchange; never the request headers (they hold the key). */
interface APIErrorInit {
  status: number;
  body: unknown;
  headers: Headers;
  method: string;
  url: string;
  /** Bytes of the answer's body as it arrived: a text body is described by its type and length, not quoted. */
  size?: number | undefined;
  /**
   * The operation returns a secret. A refusal (what an APIError always is) still keeps the service's
   * reason: its body is redacted by the one rule (credential-named fields, secret-looking values),
   * as every error's is; only a successful answer of an unexpected shape has every string redacted.
   */
  secret?: boolean | undefined;
  /** Why the call was not retried though its limit allowed it (an empty retry budget), added to the message. */
  note?: string | undefined;
}

/**
 * The service answered with a non-2xx status, or with a `{ success: false }` envelope.
 *
 * `status`, `body` (parsed JSON, or text), `headers` and the request's `method` and `url` are kept;
 * the API key never is. Catch a subclass to handle one status.
 *
 * @example
 * ```ts
 * try { await client.transactions.update(7, { linked_room_id: 3 }) } catch (error) {
 *   if (error instanceof NotFoundError) console.log('no such transaction', error.body);
 *   else throw error;
 * }
 * ```
 */
export class APIError extends SvcError {
  override name = 'APIError';
  /** HTTP status of the response (200 for a `{ success: false }` envelope). */
  readonly status: number;
  /** The response body: parsed JSON when it was JSON, else its text, else `undefined`. */
  readonly body: unknown;
  /** The response headers. */
  readonly headers: Headers;
  /** The request method, upper-case. */
  readonly method: string;
  /** The full request URL, its credentials (`user:password@`, `access_token=…`) shown as `[redacted]`. */
  readonly url: string;
  /** The service's request id (`x-request-id`), when it sent one: quote it when reporting a problem. */
  readonly requestId: string | undefined;

  /**
   * Made by the client from a failed exchange; the message names the request and the service's words.
   *
   * @param init The failed exchange: status, body, headers, the request's method and URL.
   * @param message The message to use instead of the one described from `init`.
   */
  constructor(init: APIErrorInit, message?: string) {
    // A refusal, even of an operation that returns a secret, says why: the one rule hides only credentials.
    const body = redactBody(init.body);
    super(message ?? describeFailure({ ...init, body }));
    this.status = init.status;
    this.body = body;
    this.headers = init.headers;
    this.method = init.method;
    this.url = redactUrl(init.url);
    this.requestId = init.headers.get('x-request-id') ?? undefined;
  }

  /**
   * Builds the subclass that matches `init.status`: the one place statuses map to classes.
   *
   * @param init The failed exchange whose status picks the subclass.
   */
  static generate(init: APIErrorInit): APIError {
    const { status } = init;
    if (status === 400) return new BadRequestError(init);
    if (status === 401) return new AuthenticationError(init);
    if (status === 403) return new PermissionDeniedError(init);
    if (status === 404) return new NotFoundError(init);
    if (status === 409) return new ConflictError(init);
    if (status === 422) return new UnprocessableEntityError(init);
    if (status === 429) return new RateLimitError(init);
    if (status >= 500) return new InternalServerError(init);
    return new APIError(init);
  }
}

/** 400: the service rejected the request as malformed. */
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
/** 401: the API key is missing, wrong or revoked. */
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
/** 403: the key is valid but not allowed to do this. */
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
/** 404: no such resource (or path). */
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
/** 409: the request conflicts with the resource's current state. */
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
/** 422: the body was well-formed but its values were refused. */
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}
/**
 * 429: too many requests; retried automatically (within the retry budget), waiting as the service
 * asked (`retry-after-ms`, `Retry-After`, the reset of its `RateLimit` window).
 *
 * @example
 * ```ts
 * try { await client.deals.list() } catch (error) {
 *   if (error instanceof RateLimitError) console.log(`limit ${error.rateLimit?.limit}, resets in ${error.rateLimit?.resetMs} ms`);
 *   else throw error;
 * }
 * ```
 */
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  /** The limits the service announced with this refusal; `undefined` when it sent no throttling header. */
  readonly rateLimit: RateLimitInfo | undefined;

  /**
   * Made by `APIError.generate` for a 429 answer; the limits are read from its headers.
   *
   * @param init The failed exchange: status, body, headers, the request's method and URL.
   * @param message The message to use instead of the one described from `init`.
   */
  constructor(init: APIErrorInit, message?: string) {
    super(init, message);
    this.rateLimit = rateLimitOf(init.headers);
  }
}
/** 5xx: the service failed; retried automatically for idempotent calls. */
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/**
 * No response arrived: DNS, refused connection, reset, or an aborted request. The message names the
 * request, the host and port, and the system's error code (`ECONNREFUSED`) when there is one; `cause` has the detail.
 */
export class APIConnectionError extends SvcError {
  override name = 'APIConnectionError';
  /** The request method, upper-case. */
  readonly method: string;
  /** The full request URL, its credentials (`user:password@`, `access_token=…`) shown as `[redacted]`. */
  readonly url: string;

  /**
   * Made by the client when a request got no response; `options.cause` is the underlying failure, `options.note` why it was not retried.
   *
   * @param method The request method, upper-case.
   * @param url The request URL (its credentials are redacted before it is kept).
   * @param options The underlying failure (`cause`), a message to use instead of the described one, and why no retry followed (`note`).
   */
  constructor(method: string, url: string, options?: { cause?: unknown; message?: string; note?: string | undefined }) {
    const message = options?.message ?? `${describeRequest(method, url)} failed: could not reach ${unreached(parseUrl(url), options?.cause)}`;
    super(message + withNote(options?.note), { cause: options?.cause });
    this.method = method;
    this.url = redactUrl(url);
  }
}

/** No response arrived within `timeout` ms (after any retries). */
export class APITimeoutError extends APIConnectionError {
  override name = 'APITimeoutError';

  /**
   * Made by the client when an attempt took longer than `timeout` ms; `detail.phase` says where the
   * time went when the client queues requests (`maxConcurrency`, a rate), `detail.note` why no retry followed.
   *
   * @param method The request method, upper-case.
   * @param url The request URL (its credentials are redacted before it is kept).
   * @param timeout The `timeout` option in force, in milliseconds.
   * @param detail Where the time went (`phase`: queued or sent) and why no retry followed (`note`).
   */
  constructor(method: string, url: string, timeout: number, detail?: { phase?: string | undefined; note?: string | undefined }) {
    const phase = detail?.phase ? ` ${detail.phase}` : '';
    super(method, url, {
      message: `${describeRequest(method, url)} timed out after ${timeout} ms${phase}: raise \`timeout\` or try again`,
      note: detail?.note,
    });
  }
}

/**
 * The caller cancelled the call with its `signal`: not a connection failure, so a retry loop on
 * `APIConnectionError` does not retry a cancel. `reason` (and `cause`) is the signal's reason; a
 * caller's `AbortSignal.timeout()` gives a `DOMException` named `TimeoutError` there, which tells it
 * apart from the SDK's own `timeout` (an `APITimeoutError`).
 *
 * @example
 * ```ts
 * try { await client.rooms.create(params, { signal: AbortSignal.timeout(5_000) }) } catch (error) {
 *   if (error instanceof APIUserAbortError) console.log('cancelled:', (error.reason as Error).name); // TimeoutError
 * }
 * ```
 */
export class APIUserAbortError extends SvcError {
  override name = 'APIUserAbortError';
  /** The request method, upper-case. */
  readonly method: string;
  /** The full request URL, its credentials (`user:password@`, `access_token=…`) shown as `[redacted]`. */
  readonly url: string;
  /** The signal's reason (`signal.reason`): an `AbortError` DOMException by default, whatever was passed to `abort(reason)` otherwise. */
  readonly reason: unknown;

  /**
   * Made by the client when the caller's signal aborted the call; the message carries the reason.
   *
   * @param method The request method, upper-case.
   * @param url The request URL (its credentials are redacted before it is kept).
   * @param reason The signal's reason (`signal.reason`).
   */
  constructor(method: string, url: string, reason: unknown) {
    super(`[svc-sdk] ${describeRequest(method, url)}: cancelled by the caller's signal (${describeReason(reason)})`, { cause: reason });
    this.method = method;
    this.url = redactUrl(url);
    this.reason = reason;
  }
}

/**
 * An undici dispatcher (or the undici package) that cannot work with this runtime's fetch: a
 * `dispatcher` of another major than `process.versions.undici`, or undici missing where `proxy`,
 * `HTTPS_PROXY` or `ca` / `cert` / `key` need it. The message says which versions, and what to install.
 */
export class UndiciMismatchError extends SvcError {
  override name = 'UndiciMismatchError';
}

/** The call's arguments were refused before anything was sent; `issues` names each field. */
export class ValidationError extends SvcError {
  override name = 'ValidationError';
  /** Every problem found, with the path of the field. */
  readonly issues: readonly Issue[];

  /**
   * Made before sending, from the problems found in the call's arguments (`operation` is e.g. `deals.create`).
   *
   * @param operation The call whose arguments were refused, e.g. `deals.create`.
   * @param issues Every problem found, with the path of the field.
   */
  constructor(operation: string, issues: readonly Issue[]) {
    super(`[svc-sdk] ${operation}: ${formatIssues(issues)}. Nothing was sent.`);
    this.issues = issues;
  }
}

/** The service answered 2xx, but a known field had the wrong type; `body` is what arrived, its credentials redacted. */
export class ResponseValidationError extends SvcError {
  override name = 'ResponseValidationError';
  /** Every problem found, with the path of the field in the response. */
  readonly issues: readonly Issue[];
  /** The (unwrapped) response body that failed validation. */
  readonly body: unknown;

  /**
   * Made from the problems found in a 2xx response `body` of `operation`; `secret` (an operation
   * that returns a secret) redacts every string value of the body: a successful answer of an
   * unexpected shape may carry the secret under any field name (`new_secret`), or as text.
   *
   * @param operation The call whose response failed validation, e.g. `webhooks.create`.
   * @param issues Every problem found, with the path of the field in the response.
   * @param body The (unwrapped) response body that failed validation.
   * @param secret Whether the operation returns a secret, so every string of `body` is redacted.
   */
  constructor(operation: string, issues: readonly Issue[], body: unknown, secret?: boolean) {
    super(`[svc-sdk] ${operation}: unexpected response from the service: ${formatIssues(issues)}`);
    this.issues = issues;
    this.body = secret ? redactEveryString(body) : redactBody(body);
  }
}

/** `name must not be empty; id: expected number`: each issue once, its field named unless its message starts with it. */
function formatIssues(issues: readonly Issue[]): string {
  return issues
    .map(({ path, message, code, expected }) => {
      const text = code === 'invalid_type' && expected && message === 'Invalid input' ? `expected ${expected}` : message;
      const field = path.map(String).join('.');
      return !field || text.startsWith(String(path[0])) ? text : `${field}: ${text}`;
    })
    .join('; ');
}

function describeFailure({ status, body, method, url, headers, size, note }: APIErrorInit): string {
  const reason = answerReason(body, headers, size);
  return `${describeRequest(method, url)} failed with ${status}${reason ? `: ${reason}` : ''}${withNote(note)}`;
}

/** What an error answer says, in a few words: the service's own (`error`, `message`, `detail` of a JSON body), or a text answer described; else `undefined`. */
function answerReason(body: unknown, headers: Headers, size: number | undefined): string | undefined {
  return typeof body === 'string' ? describeText(body, headers, size) : serverMessage(body);
}

/**
 * A text answer (an upstream's HTML error page, a proxy's text) is described, never quoted: it can
 * be kilobytes of markup, and the message ends up in logs. The text stays whole on `body`.
 */
function describeText(body: string, headers: Headers, size: number | undefined): string {
  // split always gives a first part (the whole value when it has no `;`).
  const type = headers.get('content-type')?.split(';')[0]!.trim() || 'no content type';
  const bytes = size ?? new TextEncoder().encode(body).byteLength;
  return `${type} answer of ${bytes} bytes (kept whole on error.body)`;
}

/** The service's own words: `error`, `message` or `detail` of a JSON body. */
function serverMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['error', 'message', 'detail'] as const) {
    const value = record[key];
    if (typeof value === 'string') return value;
    if (value !== undefined) return JSON.stringify(value).slice(0, 200);
  }
  return undefined;
}

/** A signal's reason in a few words: `TimeoutError: signal timed out`, or the text of a string reason, 200 characters at most. */
function describeReason(reason: unknown): string {
  let text: string;
  try {
    text = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
  } catch {
    text = typeof reason; // a reason whose toString throws
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * `127.0.0.1:4000 (ECONNREFUSED)`: where a connection was tried (the scheme's default port spelled
 * out; `parsed` is the request's URL, parsed by the caller), and the first system error code along
 * the failure's `cause` chain.
 */
function unreached(parsed: URL | undefined, cause: unknown): string {
  const where = parsed ? `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}` : 'the service';
  for (let error = cause, depth = 0; typeof error === 'object' && error !== null && depth < 8; depth++) {
    const { code } = error as { code?: unknown };
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return `${where} (${code})`;
    error = (error as { cause?: unknown }).cause;
  }
  return where;
}

/** A note (why no retry was made) as the end of a message: ` (not retried: …)`, or nothing. */
function withNote(note: string | undefined): string {
  return note ? ` (${note})` : '';
}

/** `POST /api/v1/rooms`: how messages name a request (the path and query, not the host; credentials in the query redacted). */
export function describeRequest(method: string, url: string): string {
  const parsed = parseUrl(url);
  return `${method} ${redactUrl(parsed ? parsed.pathname + parsed.search : url)}`;
}
