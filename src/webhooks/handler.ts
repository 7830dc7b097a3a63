// `createWebhookHandler`: the receiver (receiver.ts) served as a fetch handler, a thin adapter: it
// checks the options and fills in their defaults (options.ts), reads the body (under maxBodyBytes and bodyTimeoutMs), hands the
// delivery to receive(), and turns the answer into a Response. Its options are in types.ts.
import type { CreateWebhookHandler } from './api.js';
import { coarseDeadlines, type Deadlines } from './deadlines.js';
import { checkOptions } from './options.js';
import { createReceiver } from './receiver.js';
import { readStreamAtMost } from '../shared/read-at-most.js';
import { SIGNATURE_HEADER } from './signature.js';
import type { Answer, BodyFailure, HmacVerify, Receiver, WebhookHandler } from './types.js';

// Each handler's receiver, for `toNodeListener`: a registry, not a property on the function, so
// nothing hidden travels with the handler; a wrapped handler is served through fetch instead.
const receivers = /* @__PURE__ */ new WeakMap<WebhookHandler, Receiver>();

/** The receiver behind a handler made by `createWebhookHandler`, or `undefined` for any other function. */
export function receiverOf(handler: unknown): Receiver | undefined {
  return typeof handler === 'function' ? receivers.get(handler as WebhookHandler) : undefined;
}

/**
 * `createWebhookHandler` over an HMAC back end (each entry passes its own): the options checked at
 * once (a bad one throws here), then the receiver served as a fetch handler: it reads the body under
 * the limit and the deadline, and answers a `Response`.
 */
export function createWebhookHandlerWith(hmac: HmacVerify): CreateWebhookHandler {
  return (options) => {
    const checked = checkOptions(options);
    const { maxBodyBytes, bodyTimeoutMs, waitUntil } = checked;
    const receive = createReceiver(hmac, checked);
    // One timer for every body being read (deadlines.ts), as in the Node listener.
    const deadlines = coarseDeadlines(bodyTimeoutMs);
    const handler = async (request: Request): Promise<Response> => {
      const body = await readBody(request, maxBodyBytes, deadlines);
      const signature = request.headers.get(SIGNATURE_HEADER);
      return toResponse(await receive({ method: request.method, signature, body, request: () => request, keepAlive: waitUntil }));
    };
    receivers.set(handler, { receive, maxBodyBytes, bodyTimeoutMs, waitUntil });
    return handler;
  };
}

/**
 * The body's bytes, read up to `maxBytes` and no further whatever `Content-Length` says (a
 * `Request` made in code may declare 100 bytes and carry 200 MiB); a declared length over the
 * limit is refused unread; `'timeout'` once the body has not arrived within the deadline, whatever
 * serves the handler (a sender that trickles its body holds only its own socket, and not for long).
 */
function readBody(request: Request, maxBytes: number, deadlines: Deadlines): Promise<Uint8Array | BodyFailure> | BodyFailure {
  // Nothing here throws for a Request (its reads answer through their promises); a request object
  // whose headers throw would make the handler reject all the same, at its signature header.
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
  // (Not even `request.body` is touched on that path: @hono/node-server makes the stream when it is.)
  const read: Promise<ArrayBuffer | Uint8Array | undefined> = declared && !isConstructed(request) ? request.arrayBuffer() : readStreamAtMost(request.body, maxBytes);
  // One promise settled by the read or by the deadline, whichever comes first: no race of two
  // promises per delivery. The read left behind past the deadline ends with the connection (the
  // 408 closes it).
  return new Promise((resolve) => {
    const deadline = deadlines.add(() => resolve('timeout'));
    read.then(
      (bytes) => {
        deadlines.delete(deadline);
        resolve(!bytes ? 'too_large' : ArrayBuffer.isView(bytes) ? bytes : new Uint8Array(bytes));
      },
      () => {
        deadlines.delete(deadline);
        resolve('unreadable');
      },
    );
  });
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
