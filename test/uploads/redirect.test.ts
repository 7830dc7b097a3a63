import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, Client } from '../../src/index.node.js';
import { API_KEY } from './support.js';

describe('documents.upload and redirects', () => {
  // Following a 307/308 makes Node's fetch keep every chunk sent (to replay the body), which is
  // what made a streamed 1 GiB upload cost 1.1 GB of memory: uploads do not follow redirects.
  it('a 307 answer is not followed: one request, then APIConnectionError', async () => {
    const paths: string[] = [];
    const server = createServer((request, response) => {
      paths.push(request.url!);
      request.resume();
      request.on('end', () => {
        response.writeHead(307, { location: '/elsewhere' });
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new Client({ apiKey: API_KEY, baseUrl, maxRetries: 2 });
      const error = await client.documents
        .upload(5, new Uint8Array([1, 2, 3]), { filename: 'a.txt' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(paths).toEqual(['/api/v1/rooms/5/documents']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
