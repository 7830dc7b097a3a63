import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fileFromPath as webFileFromPath } from '../../src/index.js';
import { APIConnectionError, Client, fileFromPath, SvcError, ValidationError } from '../../src/index.node.js';
import { API_KEY, useCaptureServer } from './support.js';

const capture = useCaptureServer();
const client = () => new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
const FILENAME_MESSAGE =
  '[svc-sdk] documents.upload: filename is required for this input: pass { filename } in the options. Nothing was sent.';

describe('documents.upload rejects bad input before sending anything', () => {
  it.each([
    ['bytes', () => new Uint8Array([1, 2])],
    ['a Blob', () => new Blob(['x'], { type: 'text/plain' })],
    ['a web ReadableStream', () => new ReadableStream<Uint8Array>({ pull: (c) => c.close() })],
    ['a Node Readable without a path', () => Readable.from([Buffer.from('x')])],
  ])('%s without a filename → ValidationError naming filename', async (_, make) => {
    const error = await client().documents.upload(5, make()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe(FILENAME_MESSAGE);
    expect((error as ValidationError).issues[0]?.path).toEqual(['filename']);
    expect(capture.requests).toHaveLength(0);
  });

  it('an unsupported input → ValidationError naming file', async () => {
    const error = await client().documents.upload(5, 'just a string' as never, { filename: 'a.txt' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/^\[svc-sdk\] documents\.upload: .*file must be a Blob, File, Uint8Array/);
    expect(capture.requests).toHaveLength(0);
  });

  it('a contentType with a line break (header injection) → ValidationError naming contentType', async () => {
    const error = await client()
      .documents.upload(5, new Uint8Array([1]), { filename: 'a.txt', contentType: 'text/plain\r\nX-Evil: 1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { path: ['contentType'], message: 'contentType must not contain line breaks: pass a MIME type such as "application/pdf"' },
    ]);
    expect(capture.requests).toHaveLength(0);
  });

  it('a bad roomId → ValidationError, nothing sent', async () => {
    await expect(client().documents.upload(-1, new Uint8Array([1]), { filename: 'a.txt' })).rejects.toBeInstanceOf(ValidationError);
    expect(capture.requests).toHaveLength(0);
  });

  it('fileFromPath of a missing file → ValidationError naming the path', async () => {
    const error = await fileFromPath('/definitely/not/here.pdf').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/^\[svc-sdk\] fileFromPath: path: cannot open "\/definitely\/not\/here\.pdf" \(ENOENT\)/);
  });

  it('fileFromPath of a directory → ValidationError (not a regular file), before anything opens it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'svc-sdk-from-path-'));
    try {
      await expect(fileFromPath(directory)).rejects.toThrow(`[svc-sdk] fileFromPath: path: cannot open "${directory}" (not a regular file): pass the path of a readable file`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('fileFromPath types a file by its extension only: none for a name without one ("pdf"), the type for a dotfile (".txt")', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'svc-sdk-from-path-'));
    try {
      for (const name of ['pdf', '.txt', 'data.unknown']) writeFileSync(join(directory, name), 'x');
      const types = await Promise.all(['pdf', '.txt', 'data.unknown'].map(async (name) => (await fileFromPath(join(directory, name))).type));
      expect(types).toEqual(['', 'text/plain', '']);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('the web entry\'s fileFromPath rejects with a clear error', async () => {
    const error = await webFileFromPath('./deck.pdf').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as Error).message).toMatch(/^\[svc-sdk\] fileFromPath needs Node: /);
  });

  it('an upload is never retried, even with maxRetries: one connection, then APIConnectionError', async () => {
    let connections = 0;
    const server = createNetServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const flaky = new Client({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 3 });
      const error = await flaky.documents
        .upload(5, new Blob(['x']), { filename: 'a.txt', maxRetries: 3 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
