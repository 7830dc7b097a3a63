import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { useRuntime } from '../support/runtime.js';

/** A well-formed API key for tests. */
export const API_KEY = 'vdr_test_0123456789abcdef';

/** One request as it arrived on the socket: headers and the exact body bytes. */
export interface CapturedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A real HTTP server on 127.0.0.1 that records raw request bytes (msw would re-encode them) and
 * answers every upload with the service's envelope.
 */
export function useCaptureServer() {
  const requests: CapturedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: true, data: { id: requests.length, original_filename: 'stored' } }));
    });
  });
  const state = { url: '' };
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    requests.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    requests,
    get url() {
      return state.url;
    },
    /** The only request received; fails when there were none or several. */
    only(): CapturedRequest {
      if (requests.length !== 1) throw new Error(`expected exactly one request, got ${requests.length}`);
      return requests[0]!;
    },
  };
}

/** The boundary named by a multipart content-type header. */
export function boundaryOf(request: CapturedRequest): string {
  const match = /^multipart\/form-data; boundary=(\S+)$/.exec(request.headers['content-type'] ?? '');
  if (!match) throw new Error(`not a multipart content-type: ${request.headers['content-type']}`);
  return match[1]!;
}

/** The exact body a browser's FormData would send for one file part, given the boundary. */
export function expectedBody(boundary: string, filenameOnWire: string, contentType: string, content: Uint8Array): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filenameOnWire}"\r\nContent-Type: ${contentType}\r\n\r\n`,
      'utf8',
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
  ]);
}

/** Every byte value, twice, with invalid UTF-8 sequences: what a text round trip would damage. */
export const BINARY = Uint8Array.from({ length: 512 }, (_, index) => (index * 7 + 0x80) % 256);

/**
 * A temporary directory for one test file, made now (so paths in it can be module constants) and
 * removed after its tests; `file(name)` is a path in it.
 */
export function useTempDir(prefix: string): { file: (name: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return { file: (name) => join(dir, name) };
}

/**
 * Makes the current test's uploads take the branch of runtimes other than Node's fetch (browsers,
 * Bun, Deno): Blobs and bytes become a Blob body instead of small chunks.
 */
export function useWebUploads(): void {
  useRuntime({ nodeFetch: false });
}
