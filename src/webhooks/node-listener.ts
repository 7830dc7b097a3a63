// The Node adapter: the same receiver as a `(req, res)` listener for Express, Fastify, Koa and
// node:http. Structural types only, no `node:` import, so it is in both entries; the receiver's work
// on a delivery (`Receive`) is called directly, without a fetch Request or Response in between (each
// costs more than the verification itself), and from the body's last event without a promise when
// every step is synchronous (BENCHMARKS.md, "Webhook receiving under load").
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, MAX_TIMER_MS } from '../shared/limits.js';
import { readEventsAtMost, type EventBodySource } from '../shared/read-at-most.js';
import { coarseDeadlines, type Deadlines } from './deadlines.js';
import { receiverOf } from './handler.js';
import { BODY_REFUSALS, refusalAnswer } from './refusals.js';
import { SIGNATURE_HEADER } from './signature.js';
import type { Answer, BodyFailure, Delivery, WebhookHandler } from './types.js';

/**
 * The part of Node's `IncomingMessage` the listener uses: Express's `req`, Fastify's `request.raw` and
 * Koa's `ctx.req` all are one. Its body events (`on`, `removeListener`, `pause`) are the ones the
 * bounded reader takes (EventBodySource in shared/read-at-most.ts).
 */
export interface NodeRequestLike extends EventBodySource {
  /** The HTTP method. */
  method?: string | undefined;
  /** The path and query, for the `Request` that `onVerificationError` hears. */
  url?: string | undefined;
  /** The request headers, lowercase names. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * What a body parser that ran first left: raw bytes (`express.raw()`) or text are used as the
   * body; a parsed object means the signed bytes are gone, and the listener says so.
   */
  body?: unknown;
  /** Whether the body stream was read to its end already (by a body parser). */
  readableEnded?: boolean | undefined;
}

/** The part of Node's `ServerResponse` the listener uses. */
export interface NodeResponseLike {
  /**
   * Sends the status and headers.
   *
   * @param status The HTTP status.
   * @param headers The response headers.
   */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /**
   * Sends the body and ends the response.
   *
   * @param body The response body: JSON, or empty.
   */
  end(body: string): unknown;
  /** Whether the headers went out already. */
  headersSent?: boolean | undefined;
}

/**
 * A Node `(req, res)` request listener: for `node:http`, Express (`app.post(path, listener)`), Fastify and Koa (their raw req/res).
 *
 * @param req The incoming request: `node:http`'s, or the framework's raw one.
 * @param res The response to answer on.
 */
export type NodeWebhookListener = (req: NodeRequestLike, res: NodeResponseLike) => Promise<void>;

/** Options of `toNodeListener`. */
export interface NodeListenerOptions {
  /**
   * How long a body may take to arrive, in ms, from the moment the listener starts reading it;
   * default: the handler's `bodyTimeoutMs` (10 000). A sender that trickles its body, or declares a `Content-Length` longer than
   * what it sends, is answered 408 and its connection closed (node:http alone would hold the
   * socket for its 300 s request timeout). `onVerificationError` hears it as `'body_timeout'`.
   */
  bodyTimeoutMs?: number | undefined;
}

const encoder = /* @__PURE__ */ new TextEncoder();
const JSON_TYPE = { 'content-type': 'application/json' };
const RECEIVED = '{"received":true}';
const HANDLER_FAILED: Answer = [500, 'handler_failed'];

/**
 * Serves a handler from `createWebhookHandler` to Node's `(req, res)` frameworks, with the same
 * guarantees (body limit, signature, replay window, dedupe, `on`): it reads the raw body itself,
 * within `bodyTimeoutMs`, so no body parser may run before it (one that did is reported with the
 * fix, answered 500). Any other fetch handler (one wrapping `createWebhookHandler`'s, say) is
 * served too, through a fetch `Request` and `Response`.
 *
 * @param handler The handler from `createWebhookHandler` (or any fetch-standard handler).
 * @param options `bodyTimeoutMs`: how long the body may take to arrive.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { createWebhookHandler, toNodeListener } from 'svc-sdk/webhooks';
 * const app = express();
 * // Before any app.use(express.json()): the listener reads the raw body itself.
 * app.post('/webhooks', toNodeListener(createWebhookHandler({
 *   secret: process.env.SVC_WEBHOOK_SECRET,
 *   on: async (event) => console.log(event.event, event.delivery_id),
 * })));
 * app.listen(3000);
 * ```
 */
export function toNodeListener(handler: WebhookHandler, options: NodeListenerOptions = {}): NodeWebhookListener {
  // A handler made by createWebhookHandler: its receiver, called directly. Anything else: through fetch.
  const receiver = receiverOf(handler);
  const { bodyTimeoutMs = receiver?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS } = options;
  if (typeof handler !== 'function') {
    throw new TypeError('[svc-sdk] toNodeListener: pass a webhook handler, e.g. toNodeListener(createWebhookHandler({ secret, on }))');
  }
  if (!(typeof bodyTimeoutMs === 'number' && bodyTimeoutMs > 0 && bodyTimeoutMs <= MAX_TIMER_MS)) {
    throw new TypeError('[svc-sdk] toNodeListener: bodyTimeoutMs must be a number of ms > 0');
  }
  const receive = receiver ? receiver.receive : viaFetch(handler);
  const maxBodyBytes = receiver?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const deadlines = coarseDeadlines(bodyTimeoutMs);
  // Settles once the answer is written: frameworks that await their handlers can.
  return (req, res) =>
    new Promise<void>((answered) => {
      const reply = (answer: Answer, close?: boolean) => {
        send(res, answer, close);
        answered();
      };
      try {
        const problem = misuse(req);
        if (problem) {
          // A setup error, not a bad delivery: the operator must see it, and the service retries meanwhile.
          console.error(`[svc-sdk] toNodeListener: ${problem}`);
          reply([500, `[svc-sdk] ${problem}`]);
          return;
        }
        readBody(req, maxBodyBytes, deadlines, (body) => {
          // A body left unread (too large, or still trickling in): close the connection rather than let
          // Node drain it. receive() never rejects: the catches are for a framework's own oddities (a
          // request object that throws).
          let delivery: Delivery;
          try {
            delivery = { method: req.method, signature: req.headers[SIGNATURE_HEADER], body, request: () => toRequest(req), keepAlive: 'process' };
          } catch {
            reply(HANDLER_FAILED);
            return;
          }
          const close = body === 'too_large' || body === 'timeout';
          receive(delivery).then(
            (answer) => reply(answer, close),
            () => reply(HANDLER_FAILED, close),
          );
        });
      } catch {
        // A request object that throws (a framework's oddity): answered, never thrown into the server.
        reply(HANDLER_FAILED);
      }
    });
}

/**
 * A receiver's `receive` over any fetch handler: the body read (under the limit and deadline)
 * becomes a `Request`, the `Response` an answer. Slower than a receiver called directly, but a
 * handler wrapped by its user (for logging, say) keeps working.
 */
function viaFetch(handler: WebhookHandler): (delivery: Delivery) => Promise<Answer> {
  return async ({ method, body, request }) => {
    // Refused before the handler could see a body: the same answers createWebhookHandler gives.
    if (typeof body === 'string') return refusalAnswer(BODY_REFUSALS[body]);
    const { url, headers } = request();
    const response = await handler(new Request(url, { method: method ?? 'POST', headers, ...(method !== 'GET' && method !== 'HEAD' && { body: body as Uint8Array<ArrayBuffer> }) }));
    return [response.status, response.ok ? undefined : errorOf(await response.text()), Object.fromEntries(response.headers)];
  };
}

/** The `error` of a JSON `{ error }` answer, or the answer's text as it is. */
function errorOf(text: string): string {
  try {
    const { error } = JSON.parse(text) as { error?: unknown };
    if (typeof error === 'string') return error;
  } catch {
    // Not JSON: the text itself.
  }
  return text;
}

/** Writes the answer, unless a framework answered already. */
function send(res: NodeResponseLike, [status, error, headers]: Answer, close?: boolean): void {
  if (res.headersSent) return;
  if (!error) {
    res.writeHead(status, JSON_TYPE);
    res.end(RECEIVED);
    return;
  }
  res.writeHead(status, { ...JSON_TYPE, ...headers, ...(close && { connection: 'close' }) });
  res.end(JSON.stringify({ error }));
}

/** What is wrong with the setup when a body parser ran before the listener and kept no raw bytes. */
function misuse(req: NodeRequestLike): string | undefined {
  const { body } = req;
  if (!req.readableEnded || body instanceof Uint8Array || typeof body === 'string') return undefined;
  return body === undefined || body === null
    ? 'the request body was read by a middleware that ran first and kept nothing (with express.raw({ type }), the type did not match?): mount the webhook route before any body parser'
    : "the request body was already parsed (express.json() or another body parser ran first), so the signed bytes are gone: register app.post('/webhooks', listener) before app.use(express.json())";
}

/**
 * Hands `done` the raw body: what express.raw() kept, or the stream read to its end; `'too_large'`
 * as soon as it passes `maxBytes` (the rest is never read), `'timeout'` when it has not ended
 * within `timeoutMs`, `'unreadable'` when the stream fails.
 */
function readBody(req: NodeRequestLike, maxBytes: number, deadlines: Deadlines, done: (body: Uint8Array | BodyFailure) => void): void {
  const { body } = req;
  if (body instanceof Uint8Array || typeof body === 'string') {
    const bytes = typeof body === 'string' ? encoder.encode(body) : body;
    done(bytes.byteLength > maxBytes ? 'too_large' : bytes);
    return;
  }
  if (Number(req.headers['content-length']) > maxBytes) {
    done('too_large');
    return;
  }
  readEventsAtMost(req, maxBytes, deadlines, done);
}

/**
 * A fetch `Request` with the delivery's method, URL and headers (not its body), for
 * `onVerificationError`: whatever the `Host` and URL, even ones no URL parser takes (`[`, `a b`,
 * `x:99999`, `%zz`), so a forged delivery cannot hide from the audit hook behind them. What cannot
 * be parsed is replaced (the host by `invalid.host`, the URL by `/`); the headers keep the original `Host`.
 */
function toRequest(req: NodeRequestLike): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      try {
        headers.append(name, item);
      } catch {
        // A header value Headers refuses (a byte Node let through): left out, never a reason to stay silent.
      }
    }
  }
  return new Request(requestUrl(req.url, req.headers.host), { method: req.method ?? 'POST', headers });
}

/** The request's URL from its path and Host, as far as they parse: a hostile Host or path falls back, never throws. */
function requestUrl(path = '/', host: unknown = 'localhost'): URL {
  for (const origin of [`http://${String(host)}`, 'http://invalid.host']) {
    try {
      return new URL(path, origin);
    } catch {
      // Try the next origin: a Host like `[` or `a b` makes no URL.
    }
  }
  return new URL('http://invalid.host/');
}
