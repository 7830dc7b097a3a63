/**
 * One attempt of a call, and how a call ends: ky's `fetch` is `attempt`; `failureOf` names the error
 * a call fails with, and `logGaveUp` says when retries gave up. ky keeps what it does well and the
 * core bypasses the rest.
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
 * The points of an attempt's life, in order: it starts (its `beforeRequest` hooks run, with a plain
 * `await`, and the headers are final), its answer is known (status and bytes read), or it fails; its
 * end is noted on the call's state (for `beforeRetry`'s delay), and ky then decides on a retry.
 */
import { isHTTPError, isNetworkError, isTimeoutError } from 'ky';
import { connectionFailure } from '../shared/fetch-failure.js';
import { readAtMost } from '../shared/read-at-most.js';
import { runtime } from '../shared/runtime.js';
import { NO_BYTES, errorBodyOf } from './body.js';
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, SvcError, describeRequest } from './errors.js';
import type { CallHooks } from './hooks.js';
import type { Governor } from './governor.js';
import { followRedirects } from './redirects.js';
import { defaultRoute, type Transport } from './transport.js';
import type { RetryState } from './retry-decision.js';
import { loggedUrl, type CoreLog } from './logger.js';
import type { CoreRequest, RequestBody } from './types.js';

/** One call's state across its attempts: it lives in the closure the core hands ky as `fetch`. */
export interface CallState extends RetryState {
  readonly request: CoreRequest;
  /** The body's content, kept beside ky's bodiless Request. */
  readonly content: RequestBody | undefined;
  /** The headers, the key included, kept beside ky's Request too (see the header comment). */
  readonly headers: Record<string, string>;
  /** Bytes the answer may have at most. */
  readonly maxResponseBytes: number;
  /** The call's hooks, when it has any. */
  readonly hooks: CallHooks | undefined;
  /** Attempts made so far. */
  attempts: number;
  /** When the first attempt started and the last one ended (`performance.now()`; read by hooks). */
  started: number;
  ended: number;
  /** Where the last attempt failed: before its answer came (`sending`), or while reading it. */
  reading: boolean;
  /** The last attempt's body, read within that attempt. */
  bytes: Uint8Array;
  /** The URL as ky sent it, query included (a custom fetch's Response may have no `url`). */
  url: string;
  /** Milliseconds the last attempt waited in the governor before it was sent; `undefined` without a governor. */
  queuedMs: number | undefined;
  /** `route: …; trust: …` of the client's transport, once made: what a connect failure names. */
  route: string | undefined;
}

/** What every attempt of a client shares. */
export interface AttemptContext {
  /** The fetch to use (looked up per attempt: test tools such as msw replace the global one later). */
  readonly fetch: () => typeof globalThis.fetch;
  /** Node's fetch validates a plain object once; a custom fetch gets a Headers of its own, as it always has. */
  readonly headersInit: (headers: Record<string, string>) => HeadersInit;
  readonly anonymousHeaders: Record<string, string>;
  /** `Bearer <key>`: added last to the headers a hook made, where no hook can read or replace it. */
  readonly authorization: string;
  readonly log: CoreLog;
  /** The client's limits on what it sends (maxConcurrency, a rate, a shared limiter); `undefined` when it sets none. */
  readonly governor?: Governor | undefined;
  /** The client's proxy and trust (a dispatcher and its fetch), made with the first attempt; `undefined` for the runtime's fetch. */
  readonly transport?: (() => Promise<Transport>) | undefined;
}

/**
 * Sends one attempt, follows its redirects, and reads the whole body (bounded by
 * `maxResponseBytes`) before returning, so ky's per-attempt timeout covers it and a body cut off
 * midway is a retried network error.
 */
export async function attempt(input: Request, call: CallState, context: AttemptContext): Promise<Response> {
  const attemptNumber = ++call.attempts;
  const url = (call.url = input.url);
  const { method, signal } = input;
  const { hooks, request } = call;
  const debug = context.log.debug;
  const { governor } = context;
  if (governor) {
    // The wait is part of the attempt: ky's timeout races this whole function, and its signal ends the wait.
    const from = performance.now();
    call.queued = governor.description;
    await governor.enter(signal);
    call.queued = undefined;
    call.queuedMs = performance.now() - from;
  }
  const started = performance.now();
  if (attemptNumber === 1) call.started = started;
  call.reading = false;
  let headers = call.headers;
  // Only a GET follows a redirect; a Node upload refuses them in fetch itself (workerd knows no
  // `redirect: 'error'`, and does not buffer bodies): undici otherwise keeps every chunk sent, to
  // replay the body after a 307/308 (nodejs/undici#4058).
  const redirect = request.operation.upload && !runtime.workerd ? 'error' : 'manual';
  let transport: Transport | undefined;
  const send = (target: string, sent: Record<string, string>, follow?: boolean): Promise<Response> => {
    const fetch = transport ? transport.fetch : context.fetch();
    // Fetch's own following (its default mode) is for a browser's opaque redirect: only a GET, so no body.
    const init: RequestInit & { duplex?: 'half'; dispatcher?: object } = follow
      ? { method, headers: context.headersInit(sent), signal }
      : { method, headers: context.headersInit(sent), body: call.content, signal, redirect };
    // fetch requires `duplex: 'half'` to send a stream (the spec's guard against full-duplex surprises).
    if (!follow && call.content instanceof ReadableStream) init.duplex = 'half';
    // A proxy's or certificate's dispatcher rides along in the init, as undici's fetch reads it.
    if (transport) init.dispatcher = transport.dispatcher;
    return fetch(target, init);
  };
  try {
    if (context.transport) {
      transport = await context.transport();
      call.route = `route: ${transport.route}; trust: ${transport.trust}`;
    }
    if (hooks?.has.beforeRequest) {
      const made = hooks.beforeRequest(attemptNumber, url, headers);
      headers = made instanceof Promise ? await made : made;
      headers.authorization = context.authorization;
    }
    let response = await send(url, headers);
    // Checked here, so an answer that is no redirect (nearly all) never leaves this module.
    if ((response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect') {
      response = await followRedirects(response, {
        method,
        url,
        headers,
        follow: method === 'GET',
        sameOrigin: request.page === true,
        anonymousHeaders: context.anonymousHeaders,
        send,
      });
    }
    call.reading = true;
    call.bytes = await readBody(response, call.maxResponseBytes, method, url);
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
    // No answer (or one too large); ky decides whether another attempt follows.
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
  } finally {
    call.ended = performance.now();
    governor?.leave();
  }
}

/**
 * The SvcError a call fails with, from whatever ended it: an APIError for an answer, the caller's
 * cancel, the SDK's timeout, or a connection failure named by where it happened. ky's own errors are
 * not kept as `cause`, as they hold the request headers.
 */
export async function failureOf(error: unknown, call: CallState, timeout: number, signal: AbortSignal | undefined): Promise<SvcError> {
  if (error instanceof SvcError) return error;
  const { request } = call;
  const { method } = request.operation;
  const requestUrl = (error as { request?: Request } | undefined)?.request?.url ?? call.url;
  // Why a retry the limit allowed was not made (an empty retry budget), said by every kind of error.
  const note = call.notRetried;
  if (isHTTPError(error)) {
    const { response } = error;
    return APIError.generate({
      status: response.status,
      body: errorBodyOf(call.bytes, response.headers),
      headers: response.headers,
      method,
      url: requestUrl,
      size: call.bytes.byteLength,
      secret: request.operation.returnsSecret,
      note,
    });
  }
  // The caller's cancel, whatever fetch made of it (an AbortError, the reason itself): never a connection failure.
  if (signal?.aborted) return new APIUserAbortError(method, requestUrl, signal.reason);
  if (isTimeoutError(error)) return new APITimeoutError(method, requestUrl, timeout, { note, phase: queuePhase(call) });
  const cause = isNetworkError(error) ? error.cause : error;
  const message = connectionFailure(cause, requestUrl, { reading: call.reading, sending: call.content !== undefined, upload: request.operation.upload });
  if (message !== undefined) return new APIConnectionError(method, requestUrl, { cause, note, message: `${describeRequest(method, requestUrl)} failed: ${message}` });
  // No connection was made (refused, unknown host, TLS refused, a proxy's refusal): which route, trusting what.
  const route = call.route ?? defaultRoute();
  return new APIConnectionError(method, requestUrl, { cause, note: [route, note].filter(Boolean).join('; ') || undefined });
}

/** Where a timed-out attempt's time went, when the client queues requests: `while queued …` or `(sent after … queued)`. */
function queuePhase(call: CallState): string | undefined {
  if (call.queued !== undefined) return `while queued behind ${call.queued} (nothing was sent)`;
  return call.queuedMs === undefined ? undefined : `(sent after ${Math.round(call.queuedMs)} ms queued)`;
}

/** The info line of a call that was retried and still failed: its error's name and status, never its message (that quotes the answer). */
export function logGaveUp(call: CallState, failure: SvcError, info: NonNullable<CoreLog['info']>): void {
  const { method } = call.request.operation;
  const { url = call.url, status } = failure as { url?: string; status?: number };
  const shown = loggedUrl(url);
  info(`[svc-sdk] ${method} ${shown} gave up after ${call.attempts} attempts: ${failure.name}${status ? ` ${status}` : ''}`, {
    method,
    url: shown,
    attempts: call.attempts,
    error: failure.name,
    status,
  });
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
  // A declared length is read into one buffer of that size (readAtMost's `declared`): no chunk list, no joined copy.
  const bytes = await readAtMost(body, limit, declared > 0 && !response.headers.has('content-encoding') ? { declared } : undefined);
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
