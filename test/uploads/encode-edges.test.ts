import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { API_KEY, BINARY, boundaryOf, expectedBody, useCaptureServer, useTempDir } from './support.js';

// The encoder's less travelled inputs: fs streams opened by a URL or a Buffer path (named and sized
// like a string path's), and one whose file is missing.

const capture = useCaptureServer();
const client = () => new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
const temp = useTempDir('svc-sdk-encode-');
const path = temp.file('räport 1.csv');
beforeAll(() => writeFile(path, BINARY));

describe('documents.upload of an fs stream opened without a string path', () => {
  it.each([
    ['a file: URL', () => createReadStream(pathToFileURL(path))],
    ['a Buffer', () => createReadStream(Buffer.from(path))],
  ])('%s: named after the file, sized by stat (a Content-Length), byte-exact', async (_kind, open) => {
    await client().documents.upload(5, open());
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'räport 1.csv', 'text/csv', BINARY))).toBe(true);
    expect(request.headers['content-length']).toBe(String(request.body.length));
  });

  it('a stream of a missing file is a ValidationError naming its error (no uncaught ENOENT while its size is looked up); nothing is sent', async () => {
    const missing = temp.file('missing.pdf');
    // An 'error' emitted with no listener is thrown out of the event loop: it reaches this handler.
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => void uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    onTestFinished(() => void process.off('uncaughtException', onUncaught));
    const call = client().documents.upload(5, createReadStream(missing));
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow(
      `[svc-sdk] documents.upload: file is a stream that failed before it was read (ENOENT: no such file or directory, open '${missing}'): pass a stream of a file that can be read. Nothing was sent.`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(uncaught).toEqual([]);
    expect(capture.requests).toHaveLength(0);
  });

  it('a Node stream of strings is sent as their UTF-8; one that yields something else is a ValidationError naming what, nothing sent', async () => {
    await client().documents.upload(5, Readable.from(['héllo ', 'wörld']), { filename: 'a.txt' });
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'a.txt', 'text/plain', new TextEncoder().encode('héllo wörld')))).toBe(true);
    capture.requests.length = 0;
    const call = client().documents.upload(5, Readable.from([1, 2, 3]), { filename: 'numbers.txt' });
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow(
      'file is a stream that failed before it was read ([svc-sdk] documents.upload: the stream yielded something other than bytes or strings)',
    );
    expect(capture.requests).toHaveLength(0);
  });
});
