import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, APITimeoutError, Client, InternalServerError } from '../../src/index.node.js';
import { API_KEY, useWebUploads } from './support.js';

// A failed upload on the branch of runtimes other than Node's fetch (browsers, Bun, Deno: bytes and
// Blobs go as a Blob body, streams framed as they come): the right error, one attempt (an upload is
// never retried, a document must not be stored twice) and the caller's stream cancelled.

/** Runs `body` against a real server on 127.0.0.1 (msw cannot drop a connection mid-body); resolves with the requests it saw. */
async function withServer(listener: RequestListener, body: (baseUrl: string) => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    listener(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return seen;
}

/** A server that drops the connection once 1 MiB of the body has arrived. */
const dropAfterOneMiB: RequestListener = (request) => {
  let received = 0;
  request.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > 1024 * 1024) request.socket.destroy();
  });
};

/** A server that reads the whole body, then answers 500 with the service's error envelope. */
const failWith500: RequestListener = (request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(500, { 'content-type': 'application/json', 'x-request-id': 'req_upload_500' });
    response.end(JSON.stringify({ success: false, error: 'storage unavailable' }));
  });
};

const STREAM_BYTES = 64 * 1024 * 1024;

/** A web ReadableStream of zeros that counts what was pulled and whether it was cancelled. */
function countingStream() {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled >= STREAM_BYTES) return controller.close();
      state.pulled += 65_536;
      controller.enqueue(new Uint8Array(65_536));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

describe('a failed upload on the web branch (a Blob body or a framed stream)', () => {
  it('a 500 answer to a Blob upload is an InternalServerError with the service\'s words, after one attempt', async () => {
    useWebUploads();
    let error: unknown;
    const seen = await withServer(failWith500, async (baseUrl) => {
      const client = new Client({ apiKey: API_KEY, baseUrl, maxRetries: 3 });
      error = await client.documents.upload(5, new Blob(['%PDF-1.7']), { filename: 'a.pdf' }).catch((caught: unknown) => caught);
    });
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 500, requestId: 'req_upload_500', method: 'POST', body: { success: false, error: 'storage unavailable' } });
    expect((error as Error).message).toContain('storage unavailable');
    expect(seen).toEqual(['POST /api/v1/rooms/5/documents']);
  });

  it('a connection dropped mid-upload of bytes is an APIConnectionError after one attempt', async () => {
    useWebUploads();
    let error: unknown;
    const seen = await withServer(dropAfterOneMiB, async (baseUrl) => {
      const client = new Client({ apiKey: API_KEY, baseUrl, maxRetries: 3 });
      error = await client.documents.upload(5, new Uint8Array(8 * 1024 * 1024), { filename: 'a.bin' }).catch((caught: unknown) => caught);
    });
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(seen).toEqual(['POST /api/v1/rooms/5/documents']);
  });

  it('a connection dropped mid-upload of a web stream cancels the stream and stops reading it', async () => {
    useWebUploads();
    const { stream, state } = countingStream();
    let error: unknown;
    const seen = await withServer(dropAfterOneMiB, async (baseUrl) => {
      const client = new Client({ apiKey: API_KEY, baseUrl, maxRetries: 3 });
      error = await client.documents.upload(5, stream, { filename: 'endless.bin' }).catch((caught: unknown) => caught);
    });
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(STREAM_BYTES / 2);
    expect(seen).toEqual(['POST /api/v1/rooms/5/documents']);
  });

  it('a 500 answer to a web stream upload cancels what is left of the stream', async () => {
    useWebUploads();
    const { stream, state } = countingStream();
    let error: unknown;
    // Answers as soon as the upload starts, as a service that refuses it early would.
    const answerEarly: RequestListener = (request, response) => {
      request.once('data', () => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: false, error: 'refused' }));
      });
    };
    await withServer(answerEarly, async (baseUrl) => {
      const client = new Client({ apiKey: API_KEY, baseUrl, maxRetries: 0 });
      error = await client.documents.upload(5, stream, { filename: 'endless.bin' }).catch((caught: unknown) => caught);
    });
    expect(error).toBeInstanceOf(InternalServerError);
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(STREAM_BYTES / 2);
  });

  it('an upload past its timeout is an APITimeoutError, and the web stream is cancelled', async () => {
    useWebUploads();
    const { stream, state } = countingStream();
    let error: unknown;
    // Reads nothing after the first chunk and never answers: only the timeout ends the call.
    const stall: RequestListener = (request) => {
      request.once('data', () => request.pause());
    };
    const seen = await withServer(stall, async (baseUrl) => {
      const client = new Client({ apiKey: API_KEY, baseUrl, maxRetries: 3, timeout: 300 });
      error = await client.documents.upload(5, stream, { filename: 'endless.bin' }).catch((caught: unknown) => caught);
    });
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(state.cancelled).toBe(true);
    expect(seen).toEqual(['POST /api/v1/rooms/5/documents']);
  });
});
