// The Node adapter: the same handler as a `(req, res)` listener for Express, Fastify, Koa and
// node:http. Structural types only, no `node:` import, so it is in both entries; the handler's
// work on a delivery (`Receive`) is called directly, without a fetch Request or Response in
// between (each costs more than the verification itself).
import { concat } from '../shared/read-at-most.js';
import { RECEIVE, type Answer, type Receive, type WebhookHandler } from './handler.js';
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
  const receive = (handler as { [RECEIVE]?: Receive } | null | undefined)?.[RECEIVE];
  if (typeof receive !== 'function') {
    throw new TypeError('[svc-sdk] toNodeListener: pass a handler made by createWebhookHandler, e.g. toNodeListener(createWebhookHandler({ secret, on }))');
  }
  return async (req, res) => {
    let answer: Answer;
    const problem = misuse(req);
    if (problem) {
      // A setup error, not a bad delivery: the operator must see it, and the service retries meanwhile.
      console.error(`[svc-sdk] toNodeListener: ${problem}`);
      answer = [500, `[svc-sdk] ${problem}`];
    } else {
      try {
        answer = await receive(
          req.method,
          req.headers[SIGNATURE_HEADER],
          (maxBytes) => readBody(req, maxBytes),
          () => toRequest(req),
          true,
        );
      } catch {
        // Receive catches what it calls; this is only for a framework's own oddities.
        answer = [500, 'handler_failed'];
      }
    }
    if (res.headersSent) return;
    const [status, error, headers] = answer;
    if (!error) {
      res.writeHead(status, JSON_TYPE);
      res.end(RECEIVED);
      return;
    }
    // An oversized body is left unread: close the connection rather than let Node drain it.
    res.writeHead(status, { ...JSON_TYPE, ...(status === 413 && { connection: 'close' }), ...headers });
    res.end(JSON.stringify({ error }));
  };
}

/** What is wrong with the setup when a body parser ran before the listener and kept no raw bytes. */
function misuse(req: NodeRequestLike): string | undefined {
  const { body } = req;
  if (!req.readableEnded || body instanceof Uint8Array || typeof body === 'string') return undefined;
  return body === undefined || body === null
    ? 'the request body was read by a middleware that ran first and kept nothing (with express.raw({ type }), the type did not match?): mount the webhook route before any body parser'
    : "the request body was already parsed (express.json() or another body parser ran first), so the signed bytes are gone: register app.post('/webhooks', listener) before app.use(express.json())";
}

/** The raw body: what express.raw() kept, or the stream, read until it passes `maxBytes`. */
function readBody(req: NodeRequestLike, maxBytes: number): Promise<Uint8Array | undefined> {
  const { body } = req;
  if (body instanceof Uint8Array || typeof body === 'string') {
    const bytes = typeof body === 'string' ? encoder.encode(body) : body;
    return Promise.resolve(bytes.byteLength > maxBytes ? undefined : bytes);
  }
  if (Number(req.headers['content-length']) > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const stop = () => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('close', onError);
    };
    const onData = (chunk: Uint8Array | string) => {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
      size += bytes.byteLength;
      if (size > maxBytes) {
        // Stop reading at once: the rest is never buffered.
        stop();
        req.pause();
        resolve(undefined);
      } else chunks.push(bytes);
    };
    const onEnd = () => {
      stop();
      resolve(concat(chunks, size));
    };
    // 'close' before 'end': the sender went away mid-body.
    const onError = (error?: unknown) => {
      stop();
      reject(error ?? new Error('the connection closed before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onError);
  });
}

/** A fetch `Request` with the delivery's method, URL and headers (not its body), for `onVerificationError`. */
function toRequest(req: NodeRequestLike): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), { method: req.method ?? 'POST', headers });
}
