import type { CreateWebhookHandler } from './api.js';
import { memoryStore } from './dedupe-memory.js';
import type { DedupeStore } from './dedupe.js';
import type { WebhookVerificationReason } from './errors.js';
import { readWebhookEvent, type WebhookEvent } from './events.js';
import { DEFAULT_TOLERANCE_MS, FUTURE_SKEW_MS, isTolerance, timestampProblem } from './replay.js';
import { readAtMost } from '../shared/read-at-most.js';
import { SIGNATURE_HEADER, toSecrets, type SigningSecret } from './signature.js';
import { verifyBody, type HmacVerify } from './verify.js';
// hooks: receiver hooks and the per-delivery record they read (webhooks/hooks.ts)
import { observeDeliveries, webhookHookSets, type DeliveryRecord, type ObservedReceive, type WebhookHooksOption } from './hooks.js';

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
  /**
   * Lets the answer go before the dedupe store has recorded the delivery as processed: the
   * recording is handed to this function, which keeps the runtime alive until it settles. Pass
   * your platform's: `waitUntil` from `cloudflare:workers` or `@vercel/functions`; on a
   * long-lived server (`@hono/node-server`, Bun, Deno), `() => {}`. Without it the answer waits
   * for the recording (a Redis round trip), since a serverless runtime may freeze once it answers.
   * `toNodeListener` never waits.
   */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
  // hooks:
  /**
   * Hooks that observe each delivery: its arrival, its verification and its outcome (processed,
   * duplicate, refused with its reason, failed) with the time taken; see `WebhookHooks`.
   * `svc-sdk/otel`'s `webhookTelemetry()` makes a set.
   */
  hooks?: WebhookHooksOption | undefined;
}

/** A fetch-standard request handler: Next.js route handlers, Hono, Workers, Bun.serve, Deno.serve. */
export type WebhookHandler = (request: Request) => Promise<Response>;

/** What the handler answers: a status, and for anything but success its error and extra headers. */
export type Answer = [status: number, error?: string, headers?: Record<string, string>];

/**
 * The handler's work on one delivery whose body was read already, whatever carried it (a fetch
 * `Request` or Node's `IncomingMessage`). `body`: the raw bytes, `undefined` when they passed
 * `maxBodyBytes`, `null` when the stream failed. `keepAlive`: when given, the answer does not wait
 * for the store to record completion, and the recording's promise is handed to it (a Node server
 * outlives its answers; a serverless runtime needs its `waitUntil`); without it the answer waits,
 * since the runtime may be frozen right after answering. The answer is given at once when every
 * step was synchronous (node:crypto, the memory store, a synchronous `on`), as a promise otherwise.
 */
export type Receive = (
  method: string | undefined,
  signature: unknown,
  body: Uint8Array | undefined | null,
  request: () => Request,
  keepAlive?: (recording: Promise<unknown>) => void,
) => Answer | Promise<Answer>;

/** What `toNodeListener` takes from a handler: its `Receive`, and the body limit to read under. */
export interface Receiver {
  /** The handler's work on one delivery. */
  receive: Receive;
  /** The handler's `maxBodyBytes`. */
  maxBodyBytes: number;
}

/** Where a handler keeps its `Receiver`, for `toNodeListener` (`Symbol.for`: the ESM and CJS builds agree). */
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
    waitUntil,
    hooks,
  } = options ?? ({} as WebhookHandlerOptions);
  // The usable secrets, once: each delivery is checked against this list.
  const secrets = toSecrets(secret);
  const store = dedupe === true ? memoryStore() : dedupe || undefined;
  const fail = (problem: string) => {
    throw new TypeError(`[svc-sdk] createWebhookHandler: ${problem}`);
  };
  if (!secrets.length) fail("secret must be the webhook's signing secret (an array of them while rotating)");
  if (typeof on !== 'function') fail('on must be a function');
  if (dedupe !== false && typeof store?.claim !== 'function') fail('dedupe must be true, false or a DedupeStore');
  if (!(maxBodyBytes > 0)) fail('maxBodyBytes must be a number of bytes > 0');
  if (!isTolerance(tolerance)) fail('tolerance must be a number of ms >= 0, or false');
  if (waitUntil !== undefined && typeof waitUntil !== 'function') fail('waitUntil must be a function');
  const hookSets = webhookHookSets(hooks); // hooks: checked with the other options (a TypeError)
  if (tolerance !== false && tolerance + FUTURE_SKEW_MS > (store?.ttlMs ?? Infinity)) {
    fail("tolerance + 5 minutes must not exceed the dedupe store's ttlMs (a replay would outlive its id)");
  }

  // hooks: `delivery`, the delivery's record when there are hooks, hears the stages below
  const receiveDelivery: ObservedReceive = (method, signature, body, request, keepAlive, delivery) => {
    if (method !== 'POST') return [405, 'method_not_allowed', { allow: 'POST' }];
    const refuse = (reason: WebhookRejectReason, status = 400, error: string = reason): Answer => {
      delivery?.refused(reason); // hooks:
      try {
        onVerificationError?.(reason, request());
      } catch {
        // A logging hook must not change the answer.
      }
      return [status, error];
    };
    if (body === null) return refuse('unreadable_body');
    if (!body) return refuse('body_too_large', 413);
    return next(
      // The raw bytes: the signature covers them exactly, so nothing may parse or re-encode them first.
      () => verifyBody(hmac, body, signature, secrets),
      (valid) => {
        if (!valid) return refuse(signature ? 'invalid_signature' : 'missing_signature', 401);
        const event = readWebhookEvent(body);
        // Not a delivery: the message names the field, never a value.
        if (typeof event === 'string') return refuse('invalid_payload', 400, event);
        delivery?.verified(event); // hooks:
        const late = timestampProblem(event.timestamp, tolerance);
        return late ? refuse(late) : processEvent(event, keepAlive, delivery);
      },
    );
  };
  // hooks: with hooks, each delivery gets a record and its answer is reported (the Node listener uses this too)
  const receive: Receive = hookSets ? observeDeliveries(hookSets, receiveDelivery) : receiveDelivery;

  /** Claims a verified delivery, runs `on`, and records it as done. */
  const processEvent = (event: WebhookEvent, keepAlive?: (recording: Promise<unknown>) => void, delivery?: DeliveryRecord) => {
    const id = event.delivery_id;
    return next(
      () => store?.claim(id),
      (state): Answer | Promise<Answer> => {
        if (state === 'done' || state === 'processing') delivery?.duplicate(state); // hooks:
        if (state === 'done') return OK;
        // Being processed by another request right now: the service may come back in a minute.
        if (state === 'processing') return [409, 'delivery_in_progress', { 'retry-after': '60' }];
        return next(
          () => on(event),
          () => {
            // The event was processed: acknowledge it even if recording that fails (the claim then
            // expires, and a retry, if any, is processed again, which beats the service retrying for
            // hours). So where the runtime outlives the answer, it goes at once and the recording
            // carries on (one Redis round trip less to wait).
            const recording = settle(() => store?.complete(id));
            if (!recording) return OK;
            if (!keepAlive) return recording.then(() => OK);
            keepAlive(recording);
            return OK;
          },
          async (failure) => {
            // Release the claim so the service's retry is processed; a failed release only delays it
            // until the claim expires. The error goes to onError, not into the answer: it may hold internals.
            await settle(() => onError(failure, event));
            await settle(() => store?.release(id));
            return [500, 'handler_failed'];
          },
        );
      },
      // The store is down: refuse rather than risk processing twice; the service retries.
      (): Answer => [500, 'dedupe_store_failed'],
    );
  };

  const handler = async (request: Request): Promise<Response> => {
    // The body, given up as soon as it passes maxBodyBytes (`undefined`); `null`: unreadable, which
    // receive answers. A declared length within the limit is held to by the HTTP parser: read at
    // once (the fast path of every server, @hono/node-server's included); chunked bodies are
    // counted as they come.
    let body: Uint8Array | undefined | null = null;
    try {
      const length = request.headers.get('content-length');
      body =
        Number(length) > maxBodyBytes
          ? undefined
          : length
            ? new Uint8Array(await request.arrayBuffer())
            : await readAtMost(request.body, maxBodyBytes);
    } catch {
      // Unreadable: receive answers it.
    }
    const answer = receive(request.method, request.headers.get(SIGNATURE_HEADER), body, () => request, waitUntil);
    return Array.isArray(answer) ? toResponse(answer) : answer.then(toResponse);
  };
  (handler as { [RECEIVE]?: Receiver })[RECEIVE] = { receive, maxBodyBytes };
  return handler;
}

function logError(error: unknown, event: WebhookEvent): void {
  console.error(`[svc-sdk] webhook on() failed for delivery ${event.delivery_id}; answered 500, the service retries`, error);
}

const OK: Answer = [200];

/** An answer as a fetch `Response`: a string body and a plain headers object, what @hono/node-server answers without a copy. */
function toResponse([status, error, headers]: Answer): Response {
  return new Response(error ? JSON.stringify({ error }) : '{"received":true}', {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * Runs `step`, then `proceed` with its result: at once when the result is not a promise (node:crypto,
 * the memory store, a synchronous `on`), so those cost no promise and no turn of the event loop;
 * once it settles otherwise. A throw or a rejection goes to `failed` (rethrown without one).
 */
function next<T, R>(
  step: () => T | PromiseLike<T>,
  proceed: (value: T) => R | Promise<R>,
  failed?: (error: unknown) => R | Promise<R>,
): R | Promise<R> {
  let value;
  try {
    value = step();
  } catch (error) {
    if (failed) return failed(error);
    throw error;
  }
  // A thenable (any store's promise) is adopted by a real promise; anything else is the value.
  return typeof (value as PromiseLike<T> | undefined)?.then === 'function'
    ? Promise.resolve(value).then(proceed, failed)
    : proceed(value as T);
}

const ignore = (): void => {};

/**
 * Runs a step whose failure must not change the answer: a promise it returns is waited for, its
 * rejection ignored; a synchronous step (the memory store) costs no promise.
 */
function settle(step: () => unknown): void | Promise<void> {
  return next(step, ignore, ignore);
}
