// The Node adapter: the same handler as a `(req, res)` listener for Express, Fastify, Koa and
// node:http. Structural types only, no `node:` import, so it is in both entries; the handler's
// work on a delivery (`Receive`) is called directly, without a fetch Request or Response in
// between (each costs more than the verification itself), and from the body's last event without
// a promise when every step is synchronous (BENCHMARKS.md, "Webhook receiving under load").
import { concat } from '../shared/read-at-most.js';
import { RECEIVE, type Answer, type Receiver, type WebhookHandler } from './handler.js';
import { SIGNATURE_HEADER } from './signature.js';

/** The part of Node's `IncomingMessage` the listener uses: Express's `req`, Fastify's `request.raw` and Koa's `ctx.req` all are one. */
export interface NodeRequestLike {
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
  /** Listens to the body stream. */
  on(event: string, listener: (...args: never[]) => void): unknown;
  /** Stops listening to the body stream. */
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  /** Stops reading the body (when it passes `maxBodyBytes`). */
  pause(): unknown;
}

/** The part of Node's `ServerResponse` the listener uses. */
export interface NodeResponseLike {
  /** Sends the status and headers. */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Sends the body and ends the response. */
  end(body: string): unknown;
  /** Whether the headers went out already. */
  headersSent?: boolean | undefined;
}

/** A Node `(req, res)` request listener: for `node:http`, Express (`app.post(path, listener)`), Fastify and Koa (their raw req/res). */
export type NodeWebhookListener = (req: NodeRequestLike, res: NodeResponseLike) => Promise<void>;

const encoder = /* @__PURE__ */ new TextEncoder();
const JSON_TYPE = { 'content-type': 'application/json' };
const RECEIVED = '{"received":true}';

/**
 * Serves a handler from `createWebhookHandler` to Node's `(req, res)` frameworks, with the same
 * guarantees (body limit, signature, replay window, dedupe, `on`): it reads the raw body itself,
 * so no body parser may run before it (one that did is reported with the fix, answered 500).
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { createWebhookHandler, toNodeListener } from 'svc-sdk/webhooks';
 * const app = express();
 * // Before any app.use(express.json()): the listener reads the raw body itself.
 * app.post('/webhooks', toNodeListener(createWebhookHandler({
 *   secret: process.env.SVC_WEBHOOK_SECRET!,
 *   on: async (event) => console.log(event.event, event.delivery_id),
 * })));
 * app.listen(3000);
 * ```
 */
export function toNodeListener(handler: WebhookHandler): NodeWebhookListener {
  const receiver = (handler as { [RECEIVE]?: Receiver } | null | undefined)?.[RECEIVE];
  if (typeof receiver?.receive !== 'function') {
    throw new TypeError('[svc-sdk] toNodeListener: pass a handler made by createWebhookHandler, e.g. toNodeListener(createWebhookHandler({ secret, on }))');
  }
  const { receive, maxBodyBytes } = receiver;
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
        readBody(req, maxBodyBytes, (body) => {
          let answer;
          try {
            answer = receive(req.method, req.headers[SIGNATURE_HEADER], body, () => toRequest(req), outlive);
          } catch {
            // Receive catches what it calls; this is only for a framework's own oddities.
            answer = HANDLER_FAILED;
          }
          // An oversized body is left unread: close the connection rather than let Node drain it.
          const close = body === undefined;
          if (Array.isArray(answer)) reply(answer, close);
          else answer.then((settled) => reply(settled, close), () => reply(HANDLER_FAILED, close));
        });
      } catch {
        // A request object that throws (a framework's oddity): answered, never thrown into the server.
        reply(HANDLER_FAILED);
      }
    });
}

const HANDLER_FAILED: Answer = [500, 'handler_failed'];

/**
 * Where the listener lets the store's recording of a processed delivery go: a Node server outlives
 * its answers, so the answer need not wait for it (settled, its failure ignored, by the handler).
 */
const outlive = (): void => {};

/** Writes the answer, unless a framework answered already. */
function send(res: NodeResponseLike, [status, error, headers]: Answer, close?: boolean): void {
  if (res.headersSent) return;
  if (!error) {
    res.writeHead(status, JSON_TYPE);
    res.end(RECEIVED);
    return;
  }
  res.writeHead(status, { ...JSON_TYPE, ...(close && { connection: 'close' }), ...headers });
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
 * Hands `done` the raw body: what express.raw() kept, or the stream read to its end; `undefined`
 * as soon as it passes `maxBytes` (the rest is never read), `null` when the stream fails.
 */
function readBody(req: NodeRequestLike, maxBytes: number, done: (body: Uint8Array | undefined | null) => void): void {
  const { body } = req;
  if (body instanceof Uint8Array || typeof body === 'string') {
    const bytes = typeof body === 'string' ? encoder.encode(body) : body;
    done(bytes.byteLength > maxBytes ? undefined : bytes);
    return;
  }
  if (Number(req.headers['content-length']) > maxBytes) {
    done(undefined);
    return;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // The first outcome wins, and the listeners go with it: the request may outlive the answer.
  const finish = (outcome: Uint8Array | undefined | null) => {
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('error', onFailure);
    done(outcome);
  };
  const onData = (chunk: Uint8Array | string) => {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    size += bytes.byteLength;
    if (size > maxBytes) {
      // Stop reading at once: the rest is never buffered.
      req.pause();
      finish(undefined);
    } else chunks.push(bytes);
  };
  const onEnd = () => finish(concat(chunks, size));
  // The sender went away mid-body: with an 'error' listener, Node's IncomingMessage emits
  // ECONNRESET 'aborted' (without one it only closes). No 'close' listener: on a real request it
  // measurably raised the server CPU per delivery (the A/B is in the commit that removed it, 0e9e6da).
  const onFailure = () => finish(null);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onFailure);
}

/** A fetch `Request` with the delivery's method, URL and headers (not its body), for `onVerificationError`. */
function toRequest(req: NodeRequestLike): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), { method: req.method ?? 'POST', headers });
}
