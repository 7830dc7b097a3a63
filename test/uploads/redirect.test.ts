import { open } from 'node:fs/promises';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, Client, fileFromPath, SvcError } from '../../src/index.node.js';
import { detectRuntime } from '../../src/shared/runtime.js';
import { useRuntime } from '../support/runtime.js';
import { API_KEY, useTempDir, useWebUploads } from './support.js';

/** Runs `body` against a real HTTP server on 127.0.0.1 (msw cannot answer with a redirect that fetch then follows). */
async function withServer(listener: RequestListener, body: (baseUrl: string) => Promise<void>): Promise<void> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** A server that answers uploads to the room with a 307 to /elsewhere, and /elsewhere with a stored document. */
function redirectingServer(seen: string[]): RequestListener {
  return (request, response) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    request.on('end', () => {
      if (request.url === '/elsewhere') {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: true, data: { id: 9, original_filename: 'a.txt' } }));
        return;
      }
      response.writeHead(307, { location: '/elsewhere' });
      response.end();
    });
  };
}

describe('documents.upload and redirects', () => {
  // Following a 307/308 makes Node's fetch keep every chunk sent (to replay the body), which is
  // what made a streamed 1 GiB upload cost 1.1 GB of memory: uploads do not follow redirects.
  it('a 307 answer is not followed: one request, then APIConnectionError', async () => {
    const seen: string[] = [];
    await withServer(redirectingServer(seen), async (baseUrl) => {
      const client = new Client({ apiKey: API_KEY, baseUrl, maxRetries: 2 });
      const error = await client.documents
        .upload(5, new Uint8Array([1, 2, 3]), { filename: 'a.txt' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(seen).toEqual(['POST /api/v1/rooms/5/documents']);
    });
  });

  // Where the body is a Blob (browsers, Bun, Deno) fetch could replay it: a followed redirect
  // would store the document at an address the caller never chose.
  it('with a Blob body (runtimes other than Node) a 307 is not followed either', async () => {
    useWebUploads();
    const seen: string[] = [];
    await withServer(redirectingServer(seen), async (baseUrl) => {
      const client = new Client({ apiKey: API_KEY, baseUrl, maxRetries: 0 });
      const error = await client.documents
        .upload(5, new Uint8Array([1, 2, 3]), { filename: 'a.txt' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SvcError);
      expect(seen).toEqual(['POST /api/v1/rooms/5/documents']);
    });
  });

  const temp = useTempDir('svc-sdk-redirect-');
  const UPLOAD_BYTES = 128 * 1024 * 1024;

  // The reason for the setting, measured: with redirects followed, Node's fetch holds every chunk
  // of a streamed body until the response (139 MiB of ArrayBuffers for this 128 MiB upload, against
  // 29 MiB without). A sparse file of zeros, so the disk is not touched.
  it('a 128 MiB upload that succeeds never holds half of its bytes in memory', async () => {
    const sparse = temp.file('sparse.bin');
    const handle = await open(sparse, 'w');
    await handle.truncate(UPLOAD_BYTES);
    await handle.close();
    let received = 0;
    // Counted from what the process holds already: other tests' buffers not yet collected (a
    // mutation run's dry run shares one process) are not this upload's.
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    await withServer(
      (request, response) => {
        request.on('data', (chunk: Buffer) => {
          received += chunk.length;
          peak = Math.max(peak, process.memoryUsage().arrayBuffers);
        });
        request.on('end', () => {
          response.writeHead(201, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ success: true, data: { id: 1, original_filename: 'sparse.bin' } }));
        });
      },
      async (baseUrl) => {
        const document = await new Client({ apiKey: API_KEY, baseUrl, maxRetries: 0 }).documents.upload(5, await fileFromPath(sparse));
        expect(document.id).toBe(1);
      },
    );
    expect(received).toBeGreaterThan(UPLOAD_BYTES);
    expect(peak - before).toBeLessThan(UPLOAD_BYTES / 2);
  });
});

describe('the redirect mode an upload hands to fetch', () => {
  /** The `redirect` the SDK hands to fetch for an upload. */
  async function uploadRedirectMode(): Promise<RequestRedirect | undefined> {
    let mode: RequestRedirect | undefined;
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: 'http://127.0.0.1:9',
      maxRetries: 0,
      fetch: async (_input: RequestInfo | URL, init?: RequestInit) => {
        mode = init?.redirect;
        return Response.json({ success: true, data: { id: 1, original_filename: 'a.txt' } }, { status: 201 });
      },
    });
    await client.documents.upload(5, new Uint8Array([1]), { filename: 'a.txt' });
    return mode;
  }

  it("is 'error' on Node", async () => {
    expect(await uploadRedirectMode()).toBe('error');
  });

  // workerd rejects `redirect: 'error'` outright (it knows only follow and manual), and does not
  // buffer request bodies, so there the upload asks for another mode.
  it('is not \'error\' on Cloudflare Workers', async () => {
    useRuntime({ workerd: true });
    expect(await uploadRedirectMode()).not.toBe('error');
  });

  it('workerd is told by navigator.userAgent "Cloudflare-Workers", and no navigator at all is not workerd', () => {
    expect(detectRuntime({ navigator: { userAgent: 'Cloudflare-Workers' } }).workerd).toBe(true);
    expect(detectRuntime({}).workerd).toBe(false);
    expect(detectRuntime({ navigator: { userAgent: 'Node.js/24' } }).workerd).toBe(false);
  });
});
