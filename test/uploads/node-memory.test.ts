import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, Client, fileFromPath } from '../../src/index.node.js';
import { NODE_CHUNK_BYTES } from '../../src/uploads/encode.js';
import { API_KEY, boundaryOf, expectedBody, useCaptureServer } from './support.js';

// What keeps a large upload's memory flat on Node (bench/upload-memory.mjs measures it): fetch gets
// small chunks, the caller's bytes are never copied, Blobs are read a slice at a time, and a failed
// upload releases its source.

const capture = useCaptureServer();
/** Larger than one 8 MiB Blob read slice, and not a multiple of any chunk size. */
const LARGE = Uint8Array.from({ length: 8 * 1024 * 1024 + 70_001 }, (_, index) => (index * 13 + (index >> 16)) % 256);

const SPARSE_SIZE = 256 * 1024 * 1024;

let dir: string;
let largePath: string;
let sparsePath: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-sdk-node-memory-'));
  largePath = join(dir, 'large.pdf');
  await writeFile(largePath, LARGE);
  // Far more than the loopback socket buffers hold, without using the disk: a sparse file of zeros.
  sparsePath = join(dir, 'sparse.bin');
  const handle = await open(sparsePath, 'w');
  await handle.truncate(SPARSE_SIZE);
  await handle.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A Client whose fetch reads the request body as fetch would and records every chunk it was handed. */
function recordingClient() {
  const chunks: Uint8Array[] = [];
  const client = new Client({
    apiKey: API_KEY,
    baseUrl: 'http://127.0.0.1:9',
    maxRetries: 0,
    fetch: async (_input: RequestInfo | URL, init?: RequestInit) => {
      const reader = (init!.body as ReadableStream<Uint8Array>).getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
      return Response.json({ success: true, data: { id: 1, original_filename: 'x' } }, { status: 201 });
    },
  });
  return { client, chunks };
}

describe('documents.upload on Node keeps memory flat', () => {
  it('a Uint8Array reaches fetch as views of the caller\'s memory (no copy), at most 8 KiB each', async () => {
    const { client, chunks } = recordingClient();
    await client.documents.upload(5, LARGE, { filename: 'large.pdf' });
    const part = chunks.slice(1, -1); // between the part headers and the closing boundary
    expect(part.reduce((sum, chunk) => sum + chunk.byteLength, 0)).toBe(LARGE.byteLength);
    expect(part.every((chunk) => chunk.buffer === LARGE.buffer)).toBe(true);
    expect(Math.max(...chunks.map((chunk) => chunk.byteLength))).toBe(NODE_CHUNK_BYTES);
  });

  it.each([
    ['a File', async () => new File([LARGE], 'large.pdf')],
    ['fileFromPath', () => fileFromPath(largePath)],
    ['an fs.createReadStream', async () => createReadStream(largePath)],
  ])('%s reaches fetch in chunks of at most 8 KiB', async (_, make) => {
    const { client, chunks } = recordingClient();
    await client.documents.upload(5, await make(), { filename: 'large.pdf' });
    expect(Math.max(...chunks.map((chunk) => chunk.byteLength))).toBeLessThanOrEqual(NODE_CHUNK_BYTES);
  });

  it.each([
    ['a File in memory', async () => new File([LARGE], 'large.pdf', { type: 'application/pdf' })],
    ['fileFromPath (read slice by slice from disk)', () => fileFromPath(largePath)],
  ])('%s larger than one read slice arrives byte-exact with its Content-Length', async (_, make) => {
    await new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 }).documents.upload(5, await make());
    const request = capture.only();
    expect(request.headers['content-length']).toBe(String(request.body.length));
    expect(request.body.equals(expectedBody(boundaryOf(request), 'large.pdf', 'application/pdf', LARGE))).toBe(true);
  });

  /** A server that drops the connection once 1 MiB of the body has arrived. */
  async function withDroppingServer(run: (baseUrl: string) => Promise<void>) {
    const server = createServer((request) => {
      let received = 0;
      request.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > 1024 * 1024) request.socket.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  // Node's fetch keeps draining a stream body after the connection is gone (the whole file, held in
  // memory for a while): the upload cancels its source itself.
  it('a connection dropped mid-upload fails with APIConnectionError and closes the fs stream', async () => {
    await withDroppingServer(async (baseUrl) => {
      const stream = createReadStream(sparsePath);
      const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
      const error = await new Client({ apiKey: API_KEY, baseUrl, maxRetries: 2 }).documents
        .upload(5, stream)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIConnectionError);
      await closed;
      expect(stream.destroyed).toBe(true);
      expect(stream.bytesRead).toBeLessThan(SPARSE_SIZE / 2);
    });
  });

  it('a connection dropped mid-upload stops reading a web ReadableStream and cancels it', async () => {
    await withDroppingServer(async (baseUrl) => {
      let pulled = 0;
      let cancelled = false;
      const source = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulled >= SPARSE_SIZE) return controller.close();
          pulled += 65_536;
          controller.enqueue(new Uint8Array(65_536));
        },
        cancel() {
          cancelled = true;
        },
      });
      const error = await new Client({ apiKey: API_KEY, baseUrl, maxRetries: 2 }).documents
        .upload(5, source, { filename: 'endless.bin' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(cancelled).toBe(true);
      expect(pulled).toBeLessThan(SPARSE_SIZE / 2);
    });
  });
});
