// Odd upload inputs and a progress callback that throws, at a real server: a locked, already-read,
// destroyed or detached input is a ValidationError before anything is sent, and whatever
// onUploadProgress throws never changes the upload's outcome, at any size.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Client, ValidationError, type Logger, type UploadProgress } from '../../src/index.node.js';
import { useRuntime } from '../support/runtime.js';
import { API_KEY, BINARY, boundaryOf, expectedBody, useCaptureServer } from './support.js';

const capture = useCaptureServer();

function recorder() {
  const lines: Array<{ level: string; message: string }> = [];
  const record = (level: string) => (message: string) => void lines.push({ level, message });
  const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  return { logger, lines };
}

const client = (logger?: Logger) => new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0, logger });

async function refusal(file: unknown): Promise<ValidationError> {
  const error = await client().documents.upload(5, file as never, { filename: 'a.bin' }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ValidationError);
  expect(capture.requests).toHaveLength(0);
  return error as ValidationError;
}

describe('inputs that cannot be read are refused before anything is sent', () => {
  it('a locked ReadableStream', async () => {
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new Uint8Array([1])) });
    stream.getReader();
    const error = await refusal(stream);
    expect(error.issues).toEqual([
      { path: ['file'], message: 'file is a ReadableStream that is locked (a reader holds it, or it is being read): release its reader, or pass a fresh stream' },
    ]);
  });

  it('a ReadableStream already read to its end', async () => {
    const stream = new Blob(['read already']).stream();
    const reader = stream.getReader();
    while (!(await reader.read()).done);
    reader.releaseLock();
    const error = await refusal(stream);
    expect(error.issues).toEqual([
      {
        path: ['file'],
        message: 'file is a stream with nothing left to read (already read to its end?): pass a fresh stream, or new Uint8Array(0) for an empty file',
      },
    ]);
  });

  it.each([
    ['read to its end', async (readable: Readable) => void (await readable.toArray())],
    ['partly read', async (readable: Readable) => void readable.read(1)],
    ['destroyed', async (readable: Readable) => void readable.destroy()],
  ])('a Node Readable %s', async (_name, spoil) => {
    const readable = new Readable({ read() {} });
    readable.push(Buffer.from('abc'));
    readable.push(Buffer.from('def'));
    readable.push(null);
    await spoil(readable);
    const error = await refusal(readable);
    expect(error.issues).toEqual([
      { path: ['file'], message: 'file is a stream that was read already (or destroyed): the document would be cut short; pass a fresh stream (fileFromPath opens one)' },
    ]);
  });

  it.each([
    ['an ArrayBuffer', (buffer: ArrayBuffer) => buffer],
    ['a Uint8Array over it', (buffer: ArrayBuffer) => new Uint8Array(buffer)],
  ])('%s that was transferred (detached)', async (_name, view) => {
    const buffer = new ArrayBuffer(8);
    const file = view(buffer);
    structuredClone(buffer, { transfer: [buffer] });
    const error = await refusal(file);
    expect(error.issues).toEqual([
      { path: ['file'], message: 'file is over a detached ArrayBuffer (transferred, as postMessage or structuredClone with transfer do): pass bytes that are still readable' },
    ]);
  });

  it('a fresh stream is uploaded whole, its first chunk included', async () => {
    const stream = new Blob([BINARY.subarray(0, 100), BINARY.subarray(100)]).stream();
    await client().documents.upload(5, stream, { filename: 'a.bin', contentType: 'application/octet-stream' });
    const request = capture.only();
    expect(request.body).toEqual(expectedBody(boundaryOf(request), 'a.bin', 'application/octet-stream', BINARY));
  });
});

describe('an onUploadProgress that throws', () => {
  const throwing = (calls: UploadProgress[]) => (progress: UploadProgress) => {
    calls.push(progress);
    throw new Error('progress bar gone');
  };

  it.each([
    ['a small file', 10],
    ['a 1 MiB file', 1024 * 1024],
  ])('never changes the outcome for %s: stored, every byte sent, warned once', async (_name, size) => {
    const content = Uint8Array.from({ length: size }, (_, index) => index % 251);
    const { logger, lines } = recorder();
    const calls: UploadProgress[] = [];
    const document = await client(logger).documents.upload(5, content, { filename: 'a.bin', contentType: 'application/octet-stream', onUploadProgress: throwing(calls) });
    expect(document.id).toBe(1);
    const request = capture.only();
    expect(request.body).toEqual(expectedBody(boundaryOf(request), 'a.bin', 'application/octet-stream', content));
    expect(calls.at(-1)).toEqual({ loaded: Number(request.headers['content-length']), total: Number(request.headers['content-length']) });
    expect(lines).toEqual([
      { level: 'warn', message: '[svc-sdk] documents.upload: onUploadProgress threw (Error: progress bar gone); the upload goes on, and further errors of it are not reported' },
    ]);
  });

  it('reports at most 200 characters of what the callback threw, in the message and in the log fields', async () => {
    const fields: unknown[] = [];
    const messages: string[] = [];
    const logger: Logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (message, extra) => void (messages.push(message), fields.push(extra)) };
    const long = 'x'.repeat(300);
    await client(logger).documents.upload(5, BINARY, { filename: 'a.bin', onUploadProgress: () => { throw new Error(long); } });
    const reason = `Error: ${long}`.slice(0, 200);
    expect(messages).toEqual([`[svc-sdk] documents.upload: onUploadProgress threw (${reason}); the upload goes on, and further errors of it are not reported`]);
    expect(fields).toEqual([{ operation: 'documents.upload', error: reason }]);
  });

  it('a callback returning a rejected promise is reported once too, and the upload succeeds', async () => {
    const { logger, lines } = recorder();
    const document = await client(logger).documents.upload(5, BINARY, { filename: 'a.bin', onUploadProgress: () => Promise.reject(new Error('async bar gone')) });
    expect(document.id).toBe(1);
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map(({ message }) => message)).toEqual([
      '[svc-sdk] documents.upload: onUploadProgress threw (Error: async bar gone); the upload goes on, and further errors of it are not reported',
    ]);
  });

  it('in a browser, where a Blob goes whole, a throwing callback does not fail the upload either', async () => {
    useRuntime({ browser: true, nodeFetch: false });
    const calls: UploadProgress[] = [];
    const document = await client(recorder().logger).documents.upload(5, new Blob([BINARY]), { filename: 'a.bin', onUploadProgress: throwing(calls) });
    expect(document.id).toBe(1);
    expect(calls).toEqual([
      { loaded: 0, total: capture.only().body.byteLength },
      { loaded: capture.only().body.byteLength, total: capture.only().body.byteLength },
    ]);
  });
});
