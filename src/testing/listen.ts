import type { ServedBy } from './faults.js';
import { importPeer } from './peers.js';

/**
 * The most of a request body the server reads and drops when the answer came without reading it (a 401,
 * a 404 for the room): 8 MiB, a few uploads' worth. Past it (or declared past it by `Content-Length`)
 * the answer goes at once with `Connection: close`.
 */
export const UNREAD_BODY_DRAIN_BYTES = 8 * 1024 * 1024;

/** How long the drain waits for the next chunk of a body the client is not sending, before it answers with `Connection: close`. */
export const UNREAD_BODY_IDLE_MS = 2000;

/** A running HTTP server of the emulator. */
export interface ListeningEmulator {
  /** The base URL to give a `Client`, like `http://127.0.0.1:4010`. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Stops the server. */
  close(): Promise<void>;
}

type FetchHandler = (request: Request, servedBy: ServedBy) => Promise<Response>;

/** Serves a fetch handler on 127.0.0.1 with @hono/node-server, loaded only when called (an optional peer). */
export async function listen(fetch: FetchHandler, port: number): Promise<ListeningEmulator> {
  const { serve } = await importPeer('@hono/node-server', () => import('@hono/node-server'), 'emulator.listen()');
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: answeredAfterTheBody(fetch), port, hostname: '127.0.0.1' }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        port: info.port,
        close: () =>
          new Promise<void>((done, fail) => {
            // Keep-alive connections would hold close() open; the emulator's clients are done by now.
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close((error) => (error ? fail(error) : done()));
          }),
      });
    });
    server.once('error', reject);
  });
}

/**
 * `fetch`, with a request body the answer left unread (a refusal: 401, 404 for the room, 413) read to
 * its end before the answer goes, as a real server's lingering read does. Unread, @hono/node-server
 * holds the body paused and closes the socket under the client still sending it: fetch then reports a
 * socket error (UND_ERR_SOCKET) instead of the status, in up to half of back-to-back 2 MB uploads. The
 * handler reads the body through a stream of this wrapper's, so one it cancels (a 413 as soon as the
 * declared length is too large) is still drained from the socket. A body past
 * `UNREAD_BODY_DRAIN_BYTES` (or declared so), or one that stops coming for `idleMs` (default `UNREAD_BODY_IDLE_MS`), is
 * dropped unread and the answer says `Connection: close`.
 */
export function answeredAfterTheBody(fetch: FetchHandler, { idleMs = UNREAD_BODY_IDLE_MS }: { idleMs?: number } = {}): FetchHandler {
  return async (request, servedBy) => {
    // GET and HEAD have no body; asking for one would make @hono/node-server build a whole Request.
    if (request.method === 'GET' || request.method === 'HEAD' || request.body === null) return fetch(request, servedBy);
    const source = request.body.getReader();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await source.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        // The handler is done with it; the rest is drained below, after the answer is made.
        cancel: () => undefined,
      },
      { highWaterMark: 0 },
    );
    const routed = new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal, duplex: 'half' } as RequestInit);
    const response = await fetch(routed, servedBy);
    const declared = Number(request.headers.get('content-length') ?? 0);
    if (declared <= UNREAD_BODY_DRAIN_BYTES && (await drain(source, UNREAD_BODY_DRAIN_BYTES, idleMs))) return response;
    void source.cancel().catch(() => undefined);
    const headers = new Headers(response.headers);
    headers.set('connection', 'close');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

/**
 * Reads what is left of `source` and drops it: true when it ended within `limit` bytes; false past
 * it, after `idleMs` without a chunk, or on an error (the client went away).
 */
async function drain(source: ReadableStreamDefaultReader<Uint8Array>, limit: number, idleMs: number): Promise<boolean> {
  let read = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<'idle'>((resolve) => {
    timer = setTimeout(() => resolve('idle'), idleMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([source.read(), idle]);
      if (next === 'idle') return false;
      if (next.done) return true;
      read += next.value.byteLength;
      if (read > limit) return false;
      timer?.refresh();
    }
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
