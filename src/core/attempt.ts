/**
 * One attempt of a call: ky's `fetch`. ky keeps what it does well and the core bypasses the rest.
 *
 * Kept from ky: the retry schedule (limit, methods, statuses, backoff with jitter, Retry-After on
 * 429/503), the timeout of each attempt (it races this whole function, body read included), the
 * signal, the query string, HTTPError for a non-2xx answer, and the `beforeRetry` hook.
 *
 * Bypassed: ky's Request body and headers (the body and headers travel beside ky's bodiless
 * Request, in the call's state: a Request with a body costs a second copy through a TransformStream
 * in undici, and ky would copy the headers three times: BENCHMARKS.md, "Per-request overhead"),
 * redirects (`redirects.ts` follows them, by the core's rules), upload progress (the upload
 * encoder counts bytes), and ky's body parsing (the body is read here, as bytes, bounded by
 * `maxResponseBytes`).
 *
 * The points of an attempt's life, in order: it starts (`started`: headers final), its answer is
 * known (`answered`: status and bytes read), or it fails (`failed`); ky then decides on a retry.
 */
import { readAtMost } from '../shared/read-at-most.js';
import { NO_BYTES } from './body.js';
import { SvcError, describeRequest } from './errors.js';
import { loggedUrl, type CoreLog } from './logger.js';
import { followRedirects, isRedirect } from './redirects.js';
import type { RequestBody } from './types.js';

/** One call's state across its attempts: it lives in the closure the core hands ky as `fetch`. */
export interface CallState {
  /** The body, kept beside ky's bodiless Request. */
  readonly body: RequestBody | undefined;
  /** The headers, kept beside ky's Request too (see the header comment); whatever wraps an attempt may replace them before it starts. */
  headers: Record<string, string>;
  /** `'error'` for a Node upload (fetch refuses redirects itself), else `'manual'`: redirects.ts decides. */
  readonly redirect: 'error' | 'manual';
  /** Only a GET follows a redirect. */
  readonly follow: boolean;
  /** A list's page: no redirect to another origin. */
  readonly sameOrigin: boolean;
  /** Bytes the answer may have at most. */
  readonly maxResponseBytes: number;
  /** Attempts made so far. */
  attempts: number;
  /** The last attempt's body, read within that attempt. */
  bytes: Uint8Array;
  /** The URL as ky sent it, query included (a custom fetch's Response may have no `url`). */
  url: string;
}

/** What every attempt of a client shares. */
export interface AttemptContext {
  /** The fetch to use (looked up per attempt: test tools such as msw replace the global one later). */
  readonly fetch: () => typeof globalThis.fetch;
  /** Node's fetch validates a plain object once; a custom fetch gets a Headers of its own, as it always has. */
  readonly headersInit: (headers: Record<string, string>) => HeadersInit;
  readonly anonymousHeaders: Record<string, string>;
  readonly log: CoreLog;
}

/**
 * Sends one attempt, follows its redirects, and reads the whole body (bounded by
 * `maxResponseBytes`) before returning, so ky's per-attempt timeout covers it and a body cut off
 * midway is a retried network error.
 */
export async function attempt(input: Request, call: CallState, context: AttemptContext): Promise<Response> {
  const attemptNumber = ++call.attempts;
  // Started: the URL and headers are final.
  const url = (call.url = input.url);
  const { method, signal } = input;
  const debug = context.log.debug;
  const started = debug ? performance.now() : 0;
  const send = (target: string, headers: Record<string, string>, follow?: boolean): Promise<Response> =>
    follow
      ? // Fetch's own following (its default mode), for a browser's opaque redirect: only a GET, so no body.
        context.fetch()(target, { method, headers: context.headersInit(headers), signal })
      : context.fetch()(target, {
          method,
          headers: context.headersInit(headers),
          body: call.body,
          signal,
          redirect: call.redirect,
          // fetch requires `duplex: 'half'` to send a stream (the spec's guard against full-duplex surprises).
          ...(call.body instanceof ReadableStream ? { duplex: 'half' } : {}),
        } as RequestInit);
  try {
    let response = await send(url, call.headers);
    if (isRedirect(response)) {
      response = await followRedirects(response, {
        method,
        url,
        headers: call.headers,
        follow: call.follow,
        sameOrigin: call.sameOrigin,
        anonymousHeaders: context.anonymousHeaders,
        send,
      });
    }
    call.bytes = await readBody(response, call.maxResponseBytes, method, url);
    // Answered: the status and the bytes are known.
    if (debug) {
      const { status } = response;
      const requestId = response.headers.get('x-request-id') ?? undefined;
      const durationMs = Math.round(performance.now() - started);
      const shown = loggedUrl(url);
      debug(`[svc-sdk] ${method} ${shown} → ${status} in ${durationMs} ms (attempt ${attemptNumber}${requestId ? `, request id ${requestId}` : ''})`, {
        method,
        url: shown,
        status,
        durationMs,
        attempt: attemptNumber,
        requestId,
      });
    }
    return response;
  } catch (error) {
    // Failed: no answer (or one too large); ky decides whether another attempt follows.
    if (debug) {
      const durationMs = Math.round(performance.now() - started);
      const reason = error instanceof Error ? error.message : String(error);
      const shown = loggedUrl(url);
      debug(`[svc-sdk] ${method} ${shown} failed in ${durationMs} ms (attempt ${attemptNumber}): ${reason}`, {
        method,
        url: shown,
        durationMs,
        attempt: attemptNumber,
        error: reason,
      });
    }
    throw error;
  }
}

/**
 * The body's bytes, read to the end, or an SvcError as soon as they pass `limit`: a declared
 * Content-Length over it fails before reading, and a body without one (or compressed: fetch
 * inflates it) stops at the first chunk past it, so at most `limit` bytes are ever held.
 */
async function readBody(response: Response, limit: number, method: string, url: string): Promise<Uint8Array> {
  const body = response.body;
  if (body === null) return NO_BYTES;
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limit && !response.headers.has('content-encoding')) {
    void body.cancel().catch(() => undefined);
    throw tooLarge(method, url, limit, `its Content-Length is ${declared}`);
  }
  const bytes = await readAtMost(body, limit);
  if (bytes === undefined) throw tooLarge(method, url, limit, `it passed ${limit} bytes while being read`);
  return bytes.byteLength === 0 ? NO_BYTES : bytes;
}

/** The error of an answer larger than `maxResponseBytes`: not retried (the next answer would be as large). */
function tooLarge(method: string, url: string, limit: number, detail: string): SvcError {
  return new SvcError(
    `[svc-sdk] ${describeRequest(method, url)}: the answer is larger than maxResponseBytes (${limit} bytes; ${detail}): ` +
      'raise maxResponseBytes for this call or the client, or ask for less (a filter, a smaller page)',
  );
}
