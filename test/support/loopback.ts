import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** One request as it arrived on the socket. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers one request; `index` counts the requests this server got in the current test, from 0. */
export type LoopbackHandler = (request: ReceivedRequest, response: ServerResponse, index: number) => void;

/**
 * A real HTTP server on 127.0.0.1 for faults msw cannot make (a reset or a stall in the middle of a
 * body, redirects): set `handle` in a test, read `requests` after. Handlers and requests reset after each test.
 */
export function useLoopbackServer() {
  const requests: ReceivedRequest[] = [];
  let handler: LoopbackHandler | undefined;
  const server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = { method: incoming.method!, url: incoming.url!, headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      if (!handler) {
        response.writeHead(500).end('no handler set');
        return;
      }
      handler(request, response, requests.length - 1);
    });
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    handler = undefined;
    requests.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    requests,
    /** The server's base URL, `http://127.0.0.1:<port>` (known once the tests run). */
    get url() {
      return url;
    },
    /** Sets how this test's requests are answered. */
    handle(next: LoopbackHandler) {
      handler = next;
    },
  };
}

/** Writes a JSON answer. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}
