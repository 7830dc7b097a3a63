import type { ServedBy } from './faults.js';
import { importPeer } from './peers.js';

/** A running HTTP server of the emulator. */
export interface ListeningEmulator {
  /** The base URL to give a `Client`, like `http://127.0.0.1:4010`. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Serves a fetch handler on 127.0.0.1 with @hono/node-server, loaded only when called (an optional peer). */
export async function listen(fetch: (request: Request, servedBy: ServedBy) => Promise<Response>, port: number): Promise<ListeningEmulator> {
  const { serve } = await importPeer('@hono/node-server', () => import('@hono/node-server'), 'emulator.listen()');
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname: '127.0.0.1' }, (info) => {
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
