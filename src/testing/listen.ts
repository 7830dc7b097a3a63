import type { ServedBy } from './faults.js';
import { importPeer } from './peers.js';

/**
 * The most of a request body the server reads and drops when the answer came without reading it (a 401,
 * a 404 for the room): 8 MiB, a few uploads' worth. Past it the answer goes with `Connection: close`.
 */
export const UNREAD_BODY_DRAIN_BYTES = 8 * 1024 * 1024;

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
 * `fetch`, with a request body the answer left unread (a refusal: 401, 404 for the room) read to its
 * end before the answer goes, as a real server's lingering read does. Unread, @hono/node-server holds
 * the body paused and closes the socket under the client still sending it: fetch then reports a socket
 * error (UND_ERR_SOCKET) instead of the status, in up to half of back-to-back 2 MB uploads. A body past
 * `UNREAD_BODY_DRAIN_BYTES` is dropped unread and the answer says `Connection: close`.
 */
export function answeredAfterTheBody(fetch: FetchHandler): FetchHandler {
  return async (request, servedBy) => {
    const response = await fetch(request, servedBy);
    // GET and HEAD have no body; asking for one would make @hono/node-server build a whole Request.
    if (request.method === 'GET' || request.method === 'HEAD' || request.bodyUsed) return response;
    const body = request.body;
    // Locked: a fault (resetAfterBytes) reads it through a reader of its own.
    if (body === null || body.locked) return response;
    if (await drain(body, UNREAD_BODY_DRAIN_BYTES)) return response;
    const headers = new Headers(response.headers);
    headers.set('connection', 'close');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** Reads `body` to its end and drops it: true when it ended within `limit` bytes; false past it or on an error (the client went away). */
async function drain(body: ReadableStream<Uint8Array>, limit: number): Promise<boolean> {
  const reader = body.getReader();
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      read += value.byteLength;
      if (read > limit) {
        await reader.cancel().catch(() => undefined);
        return false;
      }
    }
  } catch {
    return false;
  }
}
