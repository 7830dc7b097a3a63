// What the encoder makes of inputs at the edge of what it takes, at a real server: inputs it
// cannot send are ValidationErrors naming why (never a TypeError from inside the encoder), and a
// Node stream is sized by `stat` only when it is an untouched fs stream of a whole file.
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { API_KEY, BINARY, boundaryOf, expectedBody, useCaptureServer, useTempDir } from './support.js';

const capture = useCaptureServer();
const client = () => new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
const temp = useTempDir('svc-sdk-encode-inputs-');
const path = temp.file('deck.bin');
beforeAll(() => writeFile(path, BINARY));

async function refusal(file: unknown, options: { filename?: string; contentType?: string } = { filename: 'a.bin' }): Promise<ValidationError> {
  const error = await client().documents.upload(5, file as never, options).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ValidationError);
  expect(capture.requests).toHaveLength(0);
  return error as ValidationError;
}

/** Records what reaches the process's uncaughtException handlers (an 'error' emitted with no listener) during the test. */
function uncaughtErrors(): unknown[] {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  onTestFinished(() => void process.off('uncaughtException', onUncaught));
  return uncaught;
}

describe('inputs the encoder cannot send are ValidationErrors naming why, nothing sent', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
  ])('%s as the file names the inputs it takes', async (_name, file) => {
    const error = await refusal(file);
    expect(error.issues).toEqual([
      { path: ['file'], message: 'file must be a Blob, File, Uint8Array, ArrayBuffer, ReadableStream or Node Readable (fileFromPath opens a path on Node)' },
    ]);
  });

  it('an empty filename is no filename', async () => {
    const error = await refusal(new Uint8Array([1]), { filename: '' });
    expect(error.issues).toEqual([{ path: ['filename'], message: 'filename is required for this input: pass { filename } in the options' }]);
  });

  it('a stream whose `path` is neither a string nor bytes is not named after it: a filename is required', async () => {
    const readable = Object.assign(Readable.from([Buffer.from('x')]), { path: new URL('file:///tmp/deck.pdf') });
    const error = await refusal(readable, {});
    expect(error.issues).toEqual([{ path: ['filename'], message: 'filename is required for this input: pass { filename } in the options' }]);
  });

  it('a Node stream that failed already names its error (not "destroyed")', async () => {
    const readable = new Readable({ read() {} });
    readable.on('error', () => undefined);
    readable.destroy(new Error('disk detached'));
    await new Promise((resolve) => readable.once('close', resolve));
    const error = await refusal(readable);
    expect(error.issues).toEqual([
      { path: ['file'], message: 'file is a stream that failed before it was read (disk detached): pass a stream of a file that can be read' },
    ]);
  });

  it("a Node stream that fails as the call starts (its 'error' not emitted yet, no listener of its own) names its error; nothing is thrown out of the event loop", async () => {
    const uncaught = uncaughtErrors();
    const readable = new Readable({ read() {} });
    // Sets `errored` now; 'error' is emitted on the next tick, while the call is under way.
    readable.destroy(new Error('disk detached'));
    const error = await refusal(readable);
    expect(error.issues).toEqual([
      { path: ['file'], message: 'file is a stream that failed before it was read (disk detached): pass a stream of a file that can be read' },
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(uncaught).toEqual([]);
  });

  it('an empty Node stream already ended (autoDestroy off, so not destroyed) is a stream read already', async () => {
    const readable = new Readable({ read() {}, autoDestroy: false });
    readable.push(null);
    await readable.toArray();
    expect([readable.readableEnded, readable.readableDidRead, readable.destroyed]).toEqual([true, false, false]);
    const error = await refusal(readable);
    expect(error.issues).toEqual([
      { path: ['file'], message: 'file is a stream that was read already (or destroyed): the document would be cut short; pass a fresh stream (fileFromPath opens one)' },
    ]);
  });
});

describe('a Node stream is sized by stat only when it reads a whole file untouched', () => {
  it('an fs stream of the first 100 bytes (`end` without `start`) sends those bytes, not the file\'s length', async () => {
    await client().documents.upload(5, createReadStream(path, { end: 99 }));
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'deck.bin', 'application/octet-stream', BINARY.subarray(0, 100)))).toBe(true);
  });

  it('a stream with an fs stream\'s fields and no `end` at all (a whole file) gets a Content-Length from stat', async () => {
    const readable = Object.assign(Readable.from([Buffer.from(BINARY)]), { path, bytesRead: 0 });
    await client().documents.upload(5, readable);
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'deck.bin', 'application/octet-stream', BINARY))).toBe(true);
    expect(request.headers['content-length']).toBe(String(request.body.length));
  });

  it('a stream that only carries a `path` (not an fs stream: no `bytesRead`) is sent whole, chunked: that file\'s size is not its size', async () => {
    const content = new TextEncoder().encode('a summary of the deck, shorter than the deck');
    const readable = Object.assign(Readable.from([Buffer.from(content)]), { path });
    await client().documents.upload(5, readable);
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'deck.bin', 'application/octet-stream', content))).toBe(true);
    expect(request.headers['content-length']).toBeUndefined();
    expect(request.headers['transfer-encoding']).toBe('chunked');
  });

  it("a stream with an fs stream's fields whose `path` is a URL (fs streams keep a string or bytes) is not sized from that URL's file", async () => {
    const content = new TextEncoder().encode('not the whole deck');
    const readable = Object.assign(Readable.from([Buffer.from(content)]), { path: pathToFileURL(path), bytesRead: 0 });
    await client().documents.upload(5, readable, { filename: 'deck.bin' });
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'deck.bin', 'application/octet-stream', content))).toBe(true);
    expect(request.headers['content-length']).toBeUndefined();
  });

  it("in a runtime without `process` (a browser, a worker) a stream with an fs stream's fields is sent whole, chunked", async () => {
    const readable = Object.assign(Readable.from([Buffer.from(BINARY)]), { path, bytesRead: 0 });
    const global = globalThis as { process?: unknown };
    const saved = global.process;
    global.process = undefined;
    try {
      await client().documents.upload(5, readable);
    } finally {
      global.process = saved;
    }
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'deck.bin', 'application/octet-stream', BINARY))).toBe(true);
    expect(request.headers['content-length']).toBeUndefined();
  });

  it.each([
    ['without process.getBuiltinModule (Node 22.0 to 22.2)', undefined],
    ['whose getBuiltinModule has no fs/promises', () => undefined],
  ])('on a runtime %s an fs stream is sent whole, chunked', async (_name, getBuiltinModule) => {
    const saved = Object.getOwnPropertyDescriptor(process, 'getBuiltinModule')!;
    Object.defineProperty(process, 'getBuiltinModule', { ...saved, value: getBuiltinModule });
    onTestFinished(() => void Object.defineProperty(process, 'getBuiltinModule', saved));
    await client().documents.upload(5, createReadStream(path));
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'deck.bin', 'application/octet-stream', BINARY))).toBe(true);
    expect(request.headers['content-length']).toBeUndefined();
  });
});
