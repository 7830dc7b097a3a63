import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, fileFromPath } from '../../src/index.node.js';
import { API_KEY, BINARY, boundaryOf, expectedBody, useCaptureServer, useTempDir, useWebUploads } from './support.js';

const capture = useCaptureServer();
const node = () => new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
/** A client whose uploads take the browsers' branch (a Blob body where the input allows). */
const web = () => {
  useWebUploads();
  return new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
};

// A name with everything that must survive: quotes, CR/LF, non-ASCII letters, an emoji.
const TRICKY_NAME = 'Q3 "final"\r\nmémo 日本 😀.pdf';
const TRICKY_ON_WIRE = 'Q3 %22final%22%0D%0Amémo 日本 😀.pdf';

const temp = useTempDir('svc-sdk-upload-');
const binaryPath = temp.file('data room ü.csv');
beforeAll(() => writeFile(binaryPath, BINARY));

function webStream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/** Asserts the one captured request is the exact multipart body, and whether it carried a Content-Length. */
function expectUpload(filenameOnWire: string, contentType: string, content: Uint8Array, lengthKnown: boolean) {
  const request = capture.only();
  expect(request.method).toBe('POST');
  expect(request.url).toBe('/api/v1/rooms/5/documents');
  expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
  const boundary = boundaryOf(request);
  expect(request.body.equals(expectedBody(boundary, filenameOnWire, contentType, content))).toBe(true);
  if (lengthKnown) expect(request.headers['content-length']).toBe(String(request.body.length));
  else expect(request.headers['transfer-encoding']).toBe('chunked');
}

describe('documents.upload sends byte-exact multipart for every input', () => {
  it('a Blob: its type, the filename from the options, Content-Length set', async () => {
    await node().documents.upload(5, new Blob([BINARY], { type: 'image/png' }), { filename: 'scan.png' });
    expectUpload('scan.png', 'image/png', BINARY, true);
  });

  it('a File: its name (quotes and line breaks escaped like FormData, unicode as UTF-8) and type', async () => {
    await node().documents.upload(5, new File([BINARY], TRICKY_NAME, { type: 'application/pdf' }));
    expectUpload(TRICKY_ON_WIRE, 'application/pdf', BINARY, true);
  });

  it('a File without a type: the type comes from the extension; options override name and type', async () => {
    await node().documents.upload(5, new File([BINARY], 'model.xlsx'));
    expectUpload('model.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', BINARY, true);
    capture.requests.length = 0;
    await node().documents.upload(5, new File([BINARY], 'model.xlsx'), { filename: 'renamed.bin', contentType: 'text/x-custom' });
    expectUpload('renamed.bin', 'text/x-custom', BINARY, true);
  });

  it('a Uint8Array of non-UTF-8 bytes, unknown extension: application/octet-stream', async () => {
    await node().documents.upload(5, BINARY, { filename: 'blob.dat' });
    expectUpload('blob.dat', 'application/octet-stream', BINARY, true);
  });

  it('a Buffer view into a larger pool sends only its own bytes', async () => {
    const pool = Buffer.alloc(2048, 0x41);
    const view = Buffer.from(pool.buffer, 100, BINARY.length);
    view.set(BINARY);
    await node().documents.upload(5, view, { filename: 'report.txt' });
    expectUpload('report.txt', 'text/plain', BINARY, true);
  });

  it('an ArrayBuffer', async () => {
    await node().documents.upload(5, BINARY.slice().buffer, { filename: 'notes.json' });
    expectUpload('notes.json', 'application/json', BINARY, true);
  });

  it('a web ReadableStream is streamed (chunked) with the filename from the options', async () => {
    await node().documents.upload(5, webStream([BINARY.subarray(0, 100), new Uint8Array(0), BINARY.subarray(100)]), {
      filename: TRICKY_NAME,
    });
    expectUpload(TRICKY_ON_WIRE, 'application/pdf', BINARY, false);
  });

  it('a Node Readable (Readable.from of Buffers and strings) is streamed', async () => {
    const readable = Readable.from([Buffer.from(BINARY.subarray(0, 10)), 'é', Buffer.from(BINARY.subarray(10))], { objectMode: true });
    await node().documents.upload(5, readable, { filename: 'mixed.bin', contentType: 'application/x-thing' });
    expectUpload('mixed.bin', 'application/x-thing', Buffer.concat([BINARY.subarray(0, 10), Buffer.from('é'), BINARY.subarray(10)]), false);
  });

  it('an fs.createReadStream: name from its path, type from the extension, Content-Length from stat', async () => {
    await node().documents.upload(5, createReadStream(binaryPath));
    expectUpload('data room ü.csv', 'text/csv', BINARY, true);
  });

  it('an fs.createReadStream with a start offset is streamed without a Content-Length', async () => {
    await node().documents.upload(5, createReadStream(binaryPath, { start: 12 }));
    expectUpload('data room ü.csv', 'text/csv', BINARY.subarray(12), false);
  });

  it('fileFromPath: name from the path, type from the extension, streamed from disk with a Content-Length', async () => {
    await node().documents.upload(5, await fileFromPath(binaryPath));
    expectUpload('data room ü.csv', 'text/csv', BINARY, true);
    capture.requests.length = 0;
    await node().documents.upload(5, await fileFromPath(binaryPath, { filename: TRICKY_NAME, contentType: 'text/plain' }));
    expectUpload(TRICKY_ON_WIRE, 'text/plain', BINARY, true);
  });

  it('the browsers\' branch sends the same bytes for a File, a web stream and an fs stream (sized by stat)', async () => {
    await web().documents.upload(5, new File([BINARY], TRICKY_NAME));
    expectUpload(TRICKY_ON_WIRE, 'application/pdf', BINARY, true);
    capture.requests.length = 0;
    await web().documents.upload(5, webStream([BINARY]), { filename: 'a.png' });
    expectUpload('a.png', 'image/png', BINARY, false);
    capture.requests.length = 0;
    await web().documents.upload(5, createReadStream(binaryPath));
    expectUpload('data room ü.csv', 'text/csv', BINARY, true);
  });

  it('the part headers match what the runtime\'s native FormData sends for the same file', async () => {
    const form = new FormData();
    form.append('file', new File([BINARY], TRICKY_NAME, { type: 'application/pdf' }));
    await fetch(`${capture.url}/native`, { method: 'POST', body: form });
    const native = capture.only();
    const nativeBoundary = boundaryOf(native);
    capture.requests.length = 0;
    await node().documents.upload(5, new File([BINARY], TRICKY_NAME, { type: 'application/pdf' }));
    const ours = capture.only();
    const normalize = (body: Buffer, boundary: string) => body.toString('latin1').replaceAll(boundary, 'BOUNDARY');
    expect(normalize(ours.body, boundaryOf(ours))).toBe(normalize(native.body, nativeBoundary));
  });

  it('each upload has a boundary of its own: the prefix and 128 random bits, as 28 base-36 digits', async () => {
    const boundaries = new Set<string>();
    for (let upload = 0; upload < 20; upload++) {
      await node().documents.upload(5, new Blob([BINARY]), { filename: 'scan.png' });
      boundaries.add(boundaryOf(capture.requests.at(-1)!));
    }
    expect(boundaries.size).toBe(20);
    // Four 32-bit words, each 7 base-36 digits (zero-padded): one length, so a body's size is known ahead.
    for (const boundary of boundaries) expect(boundary).toMatch(/^----svc-sdk-[0-9a-z]{28}$/);
    // Random words: 20 boundaries whose digits are all zeros or all the same would not be.
    expect(new Set([...boundaries].map((boundary) => boundary.slice(12, 19))).size).toBe(20);
  });

  it('the answer is the unwrapped Document', async () => {
    await expect(node().documents.upload(5, BINARY, { filename: 'a.txt' })).resolves.toEqual({ id: 1, original_filename: 'stored' });
  });
});
