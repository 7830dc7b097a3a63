import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, APITimeoutError, Client, fileFromPath, type Document } from '../../src/index.node.js';
import { API_KEY, boundaryOf, expectedBody, type CapturedRequest, useTempDir } from './support.js';

const CONTENT = Uint8Array.from({ length: 3 * 1024 * 1024 }, (_, index) => (index * 7 + (index >> 10)) % 256);

const temp = useTempDir('svc-sdk-retry-');
const path = temp.file('memo.pdf');
beforeAll(() => writeFile(path, CONTENT));

/** The README's retry loop: connection errors only, never a timeout. */
async function uploadWithRetry(client: Client, roomId: number, file: Blob, attempts = 3): Promise<Document> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.documents.upload(roomId, file);
    } catch (error) {
      const connectionLost = error instanceof APIConnectionError && !(error instanceof APITimeoutError);
      if (!connectionLost || attempt >= attempts) throw error;
    }
  }
}

describe('retrying an upload by hand, as the README shows', () => {
  it.each([
    ['a fileFromPath File', () => fileFromPath(path)],
    ['a Blob', async () => new File([CONTENT], 'memo.pdf')],
  ])('%s is sent whole again after the connection dropped mid-body', async (_, make) => {
    const stored: CapturedRequest[] = [];
    let connections = 0;
    const server = createServer((request, response) => {
      const attempt = ++connections;
      const chunks: Buffer[] = [];
      let received = 0;
      request.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (attempt === 1 && received > 1024 * 1024) request.socket.destroy();
      });
      request.on('end', () => {
        stored.push({ method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks) });
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: true, data: { id: stored.length, original_filename: 'memo.pdf' } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new Client({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const document = await uploadWithRetry(client, 5, await make());
      expect(document).toEqual({ id: 1, original_filename: 'memo.pdf' });
      expect(connections).toBe(2);
      expect(stored).toHaveLength(1);
      const request = stored[0]!;
      expect(request.body.equals(expectedBody(boundaryOf(request), 'memo.pdf', 'application/pdf', CONTENT))).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a timeout is not retried: the service may already hold the document', async () => {
    let requests = 0;
    const server = createServer((request) => {
      requests++;
      request.resume(); // reads the whole body, never answers
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new Client({
        apiKey: API_KEY,
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        timeout: 300,
      });
      await expect(uploadWithRetry(client, 5, new File([CONTENT], 'memo.pdf'))).rejects.toBeInstanceOf(APITimeoutError);
      expect(requests).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
