// `createWebhookHandler`: the receiver (receiver.ts) served as a fetch handler, and its options.
import type { CreateWebhookHandler } from './api.js';
import type { DedupeStore } from './dedupe.js';
import type { WebhookVerificationReason } from './errors.js';
import type { WebhookEvent } from './events.js';
import { createReceiver, type Answer, type BodyFailure, type Receiver } from './receiver.js';
import type { WebhookSecretOption } from './secrets.js';
import { readAtMost } from '../shared/read-at-most.js';
import { SIGNATURE_HEADER } from './signature.js';
import type { HmacVerify } from './verify.js';
// hooks: the option's type (webhooks/hooks.ts); the receiver (receiver.ts) runs them
import type { WebhookHooksOption } from './hooks.js';

/**
 * Why `createWebhookHandler` refused a delivery before processing it (what `onVerificationError`
 * hears, and the `error` of the answer): a body over `maxBodyBytes` (413), one that did not arrive
 * within `toNodeListener`'s `bodyTimeoutMs` (408), an unreadable body, a missing or wrong signature
 * (401), a signed body that is not a delivery, or a timestamp that has no zone or lies outside the
 * replay window (400).
 */
export type WebhookRejectReason =
  | Exclude<WebhookVerificationReason, 'no_secret'>
  | 'body_too_large'
  | 'body_timeout'
  | 'invalid_payload';

/** Options of `createWebhookHandler`. */
export interface WebhookHandlerOptions {
  /**
   * The webhook's signing secret, or several during a rotation (any one may match), or a function
   * returning it (possibly async). Read when the first delivery arrives, not when the handler is
   * made, so a module that makes the handler loads where the secret is absent (`next build`).
   * Omitted: `SVC_WEBHOOK_SECRET` from the environment, at the first delivery. While there is no
   * secret, deliveries are answered 500 with a message naming `SVC_WEBHOOK_SECRET`, also logged.
   * A secret that is present but malformed (an empty string, a number) throws when the handler is made.
   */
  secret?: WebhookSecretOption | undefined;
  /** Processes one verified event; the delivery is acknowledged (200) once it resolves, retried when it throws. */
  on: (event: WebhookEvent) => unknown;
  /**
   * Deduplication by `delivery_id`: on by default (in memory, 50 000 ids, 12 h 5 min); `false`
   * turns it off; a `DedupeStore` (e.g. `createRedisDedupeStore`) replaces the store. While `on`
   * runs, its claim is renewed, so a retry never runs beside it however long it takes.
   */
  dedupe?: boolean | DedupeStore | undefined;
  /**
   * The deadline of every dedupe store call, in ms; default 2000. A store that does not answer by
   * then (a paused Redis, a peer that never replies, a client queueing commands while it
   * reconnects) fails the delivery as a store error does: answered 500, reported to `onError`, and
   * the claim that may land late is released, so the service's retry is processed. (One timer
   * keeps every call's deadline: a call is given between 1 and 1.1 times this.)
   */
  storeTimeoutMs?: number | undefined;
  /**
   * Hears what `on` threw and dedupe store failures (the answer is 500, so the service retries).
   * Default: `console.error`, so a failing receiver is never silent; the error is never put in the response.
   */
  onError?: ((error: unknown, event: WebhookEvent) => void) | undefined;
  /**
   * The largest body read, in bytes; default 1 MiB (deliveries are a few kB). A larger
   * `Content-Length` is answered 413 at once, and a body is cut off as soon as it passes the
   * limit, whatever its `Content-Length` said, before any of it is verified.
   */
  maxBodyBytes?: number | undefined;
  /**
   * The replay window, in ms: a delivery whose signed `timestamp` is older is answered 400, as is
   * one more than 5 minutes ahead or one without `Z` or an offset. Default 12 h; `false` turns it
   * off. With the dedupe store remembering ids for longer (checked when the store says how long),
   * a captured delivery can never be processed twice.
   */
  tolerance?: number | false | undefined;
  /**
   * Hears every delivery refused before `on` (bad signature, replay, oversized or stalled body, not
   * a delivery), with the reason and the request, for your logs; whatever its `Host` or URL. Its
   * errors are ignored.
   */
  onVerificationError?: ((reason: WebhookRejectReason, request: Request) => void) | undefined;
  /**
   * Lets the answer go before the dedupe store has recorded the delivery as processed: the
   * recording is handed to this function, which keeps the runtime alive until it settles. Pass
   * your platform's: `waitUntil` from `cloudflare:workers` or `@vercel/functions`; on a
   * long-lived server (`@hono/node-server`, Bun, Deno), `() => {}`. Without it, or when it throws,
   * the answer waits for the recording (a Redis round trip), since a serverless runtime may freeze
   * once it answers. `toNodeListener` never waits.
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

// Each handler's receiver, for `toNodeListener`: a registry, not a property on the function, so
// nothing hidden travels with the handler; a wrapped handler is served through fetch instead.
const receivers = /* @__PURE__ */ new WeakMap<WebhookHandler, Receiver>();

/** The receiver behind a handler made by `createWebhookHandler`, or `undefined` for any other function. */
export function receiverOf(handler: unknown): Receiver | undefined {
  return typeof handler === 'function' ? receivers.get(handler as WebhookHandler) : undefined;
}

/** `createWebhookHandler` over an HMAC back end (each entry passes its own). */
export function createWebhookHandlerWith(hmac: HmacVerify): CreateWebhookHandler {
  return (options) => fetchHandler(createReceiver(hmac, options));
}

/** The receiver as a fetch handler: reads the body under the limit, answers a `Response`. */
function fetchHandler(receiver: Receiver): WebhookHandler {
  const { receive, maxBodyBytes, waitUntil } = receiver;
  const handler = async (request: Request): Promise<Response> => {
    const body = await readBody(request, maxBodyBytes);
    const answer = receive(request.method, request.headers.get(SIGNATURE_HEADER), body, () => request, waitUntil);
    return Array.isArray(answer) ? toResponse(answer) : answer.then(toResponse);
  };
  receivers.set(handler, receiver);
  return handler;
}

/**
 * The body's bytes, read up to `maxBytes` and no further whatever `Content-Length` says (a
 * `Request` made in code may declare 100 bytes and carry 200 MiB); a declared length over the
 * limit is refused unread.
 */
async function readBody(request: Request, maxBytes: number): Promise<Uint8Array | BodyFailure> {
  try {
    const declared = request.headers.get('content-length');
    if (Number(declared) > maxBytes) {
      request.body?.cancel().catch(() => {});
      return 'too_large';
    }
    // A declared length is held to by the HTTP parser when the body comes straight off the socket:
    // then arrayBuffer() reads it at once (@hono/node-server's fast path; its `body` stream costs
    // 3-4x the whole verification). Its requests are not made by a constructor (their prototype is
    // not their constructor's), while any Request made with `new Request` (or a subclass) may carry
    // a body of any length under any Content-Length: that one is read in bounded chunks.
    if (declared && !isConstructed(request)) return new Uint8Array(await request.arrayBuffer());
    return (await readAtMost(request.body, maxBytes)) ?? 'too_large';
  } catch {
    return 'unreadable';
  }
}

/** Whether `request` was made by its constructor (`new Request`, a subclass), rather than by a server from a socket. */
function isConstructed(request: Request): boolean {
  return Object.getPrototypeOf(request) === (request.constructor as { prototype?: unknown } | undefined)?.prototype;
}

/** An answer as a fetch `Response`: a string body and a plain headers object, what @hono/node-server answers without a copy. */
function toResponse([status, error, headers]: Answer): Response {
  return new Response(error ? JSON.stringify({ error }) : '{"received":true}', {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
