import type { CreateWebhookHandler } from './api.js';
import { memoryStore } from './dedupe-memory.js';
import type { DedupeStore } from './dedupe.js';
import type { WebhookVerificationReason } from './errors.js';
import { parseWebhookEvent, type WebhookEvent } from './events.js';
import { DEFAULT_TOLERANCE_MS, FUTURE_SKEW_MS, isTolerance, timestampProblem } from './replay.js';
import { readAtMost } from '../shared/read-at-most.js';
import { SIGNATURE_HEADER, toSecrets, type SigningSecret } from './signature.js';
import { verifyBody, type HmacVerify } from './verify.js';

/**
 * Why `createWebhookHandler` refused a delivery before processing it (what `onVerificationError`
 * hears, and the `error` of the answer): a body over `maxBodyBytes` (413), an unreadable body,
 * a missing or wrong signature (401), a signed body that is not a delivery, or a timestamp
 * outside the replay window (400).
 */
export type WebhookRejectReason =
  | Exclude<WebhookVerificationReason, 'no_secret'>
  | 'body_too_large'
  | 'invalid_payload';

/** Options of `createWebhookHandler`. */
export interface WebhookHandlerOptions {
  /** The webhook's signing secret, or several during a rotation (any one may match); read once, when the handler is made. */
  secret: SigningSecret;
  /** Processes one verified event; the delivery is acknowledged (200) once it resolves, retried when it throws. */
  on: (event: WebhookEvent) => unknown;
  /**
   * Deduplication by `delivery_id`: on by default (in memory, 10 000 ids, 12 h 5 min); `false`
   * turns it off; a `DedupeStore` (e.g. `createRedisDedupeStore`) replaces the store.
   */
  dedupe?: boolean | DedupeStore | undefined;
  /**
   * Hears what `on` threw (the answer is 500, so the service retries). Default: `console.error`,
   * so a failing receiver is never silent; the error is never put in the response.
   */
  onError?: ((error: unknown, event: WebhookEvent) => void) | undefined;
  /**
   * The largest body read, in bytes; default 1 MiB (deliveries are a few kB). A larger
   * `Content-Length` is answered 413 at once, and a streamed body is cut off as soon as it passes
   * the limit, before any of it is verified.
   */
  maxBodyBytes?: number | undefined;
  /**
   * The replay window, in ms: a delivery whose signed `timestamp` is older is answered 400, as is
   * one more than 5 minutes ahead. Default 12 h; `false` turns it off. With the dedupe store
   * remembering ids for longer (checked when the store says how long), a captured delivery can
   * never be processed twice.
   */
  tolerance?: number | false | undefined;
  /**
   * Hears every delivery refused before `on` (bad signature, replay, oversized body, not a
   * delivery), with the reason and the request, for your logs. Its errors are ignored.
   */
  onVerificationError?: ((reason: WebhookRejectReason, request: Request) => void) | undefined;
}

/** A fetch-standard request handler: Next.js route handlers, Hono, Workers, Bun.serve, Deno.serve. */
export type WebhookHandler = (request: Request) => Promise<Response>;

/** What the handler answers: a status, and for anything but success its error and extra headers. */
export type Answer = [status: number, error?: string, headers?: Record<string, string>];

/**
 * The handler's work on one delivery, whatever carries it (a fetch `Request` or Node's
 * `IncomingMessage`): `read(maxBytes)` gives the body, or `undefined` when it is over the limit.
 * `longLived`: the process outlives the answer (a Node server), so the answer need not wait for
 * the store to record completion; a fetch handler may be frozen right after answering, so it waits.
 */
export type Receive = (
  method: string | undefined,
  signature: unknown,
  read: (maxBytes: number) => Promise<Uint8Array | undefined>,
  request: () => Request,
  longLived?: boolean,
) => Promise<Answer>;

/** Where a handler keeps its `Receive`, for `toNodeListener` (`Symbol.for`: the ESM and CJS builds agree). */
export const RECEIVE = Symbol.for('svc-sdk.webhooks.receive');

/** `createWebhookHandler` over an HMAC back end (each entry passes its own). */
export function createWebhookHandlerWith(hmac: HmacVerify): CreateWebhookHandler {
  return (options) => createHandler(hmac, options);
}

function createHandler(hmac: HmacVerify, options: WebhookHandlerOptions): WebhookHandler {
  const {
    secret,
    on,
    dedupe = true,
    onError = logError,
    maxBodyBytes = 1_048_576,
    tolerance = DEFAULT_TOLERANCE_MS,
    onVerificationError,
  } = options ?? ({} as WebhookHandlerOptions);
  const fail = (problem: string) => {
    throw new TypeError(`[svc-sdk] createWebhookHandler: ${problem}`);
  };
  // The usable secrets, once: each delivery is checked against this list.
  const secrets = toSecrets(secret);
  if (!secrets.length) fail("secret must be the webhook's signing secret (an array of them while rotating)");
  if (typeof on !== 'function') fail('on must be a function');
  if (typeof dedupe !== 'boolean' && typeof dedupe?.claim !== 'function') fail('dedupe must be true, false or a DedupeStore');
  if (!(maxBodyBytes > 0)) fail('maxBodyBytes must be a number of bytes > 0');
  if (!isTolerance(tolerance)) fail('tolerance must be a number of ms >= 0, or false');
  const store = dedupe === true ? memoryStore() : dedupe || undefined;
  if (tolerance !== false && tolerance + FUTURE_SKEW_MS > (store?.ttlMs ?? Infinity)) {
    fail("tolerance + 5 minutes must not exceed the dedupe store's ttlMs (a replay would outlive its id)");
  }

  const receive: Receive = async (method, signature, read, request, longLived) => {
    if (method !== 'POST') return [405, 'method_not_allowed', { allow: 'POST' }];
    let reason: WebhookRejectReason | undefined;
    let status = 400;
    let error: string | undefined;
    let event!: WebhookEvent;
    // The raw bytes: the signature covers them exactly, so nothing may parse or re-encode them
    // first. `undefined`: over maxBodyBytes; `null`: the stream failed.
    let body: Uint8Array | undefined | null = null;
    try {
      body = await read(maxBodyBytes);
    } catch {
      // Unreadable: answered below.
    }
    if (body === null) reason = 'unreadable_body';
    else if (!body) {
      reason = 'body_too_large';
      status = 413;
    } else if (!(await verifyBody(hmac, body, signature, secrets))) {
      reason = signature ? 'invalid_signature' : 'missing_signature';
      status = 401;
    } else {
      try {
        event = parseWebhookEvent(body);
        reason = tolerance === false ? undefined : timestampProblem(event.timestamp, tolerance);
      } catch (payloadError) {
        // parseWebhookEvent throws WebhookPayloadError only; its message names the field, never a value.
        reason = 'invalid_payload';
        error = (payloadError as Error).message;
      }
    }
    if (reason) {
      try {
        onVerificationError?.(reason, request());
      } catch {
        // A logging hook must not change the answer.
      }
      return [status, error ?? reason];
    }
    const id = event.delivery_id;
    // A synchronous store or `on` (the memory store, a quick handler) is not awaited: no promise
    // and no turn of the event loop per delivery for them.
    let state;
    try {
      state = store?.claim(id);
      if (isThenable(state)) state = await state;
    } catch {
      // The store is down: refuse rather than risk processing twice; the service retries.
      return [500, 'dedupe_store_failed'];
    }
    if (state === 'done') return OK;
    // Being processed by another request right now: the service may come back in a minute.
    if (state === 'processing') return [409, 'delivery_in_progress', { 'retry-after': '60' }];
    try {
      const processing = on(event);
      if (isThenable(processing)) await processing;
    } catch (failure) {
      // Release the claim so the service's retry is processed; a failed release only delays it
      // until the claim expires. The error goes to onError, not into the answer: it may hold internals.
      await settle(() => onError(failure, event));
      await settle(() => store?.release(id));
      return [500, 'handler_failed'];
    }
    // The event was processed: acknowledge it even if recording that fails (the claim then expires,
    // and a retry, if any, is processed again, which beats the service retrying for hours). So a
    // long-lived process answers at once and records meanwhile (one Redis round trip less to wait).
    const recording = settle(() => store?.complete(id));
    if (recording && !longLived) await recording;
    return OK;
  };

  const handler = async (request: Request) => {
    const [status, error, headers] = await receive(
      request.method,
      request.headers.get(SIGNATURE_HEADER),
      (maxBytes) => readRequest(request, maxBytes),
      () => request,
    );
    // A string body and a plain headers object: what @hono/node-server answers without a copy.
    return new Response(JSON.stringify(error ? { error } : { received: true }), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  };
  return Object.assign(handler, { [RECEIVE]: receive });
}

/** The body of a fetch `Request`, read chunk by chunk and given up as soon as it passes `maxBytes`. */
async function readRequest(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  const length = request.headers.get('content-length');
  if (Number(length) > maxBytes) return undefined;
  // A declared length within the limit is held to by the HTTP parser: read at once (the fast path
  // of every server, @hono/node-server's included). Chunked bodies are counted as they come.
  if (length) return new Uint8Array(await request.arrayBuffer());
  return readAtMost(request.body, maxBytes);
}

function logError(error: unknown, event: WebhookEvent): void {
  console.error(`[svc-sdk] webhook on() failed for delivery ${event.delivery_id}; answered 500, the service retries`, error);
}

const OK: Answer = [200];

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}

/** Runs a step whose failure must not change the answer; a promise it returns is waited for, its rejection ignored. */
function settle(step: () => unknown): Promise<unknown> | undefined {
  try {
    const result = step();
    // A synchronous store (the memory one) costs no promise here.
    if (isThenable(result)) return Promise.resolve(result).catch(() => {});
  } catch {
    // See the callers: a store failure here must not change the answer.
  }
  return undefined;
}
