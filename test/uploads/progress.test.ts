import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, fileFromPath, type UploadProgress } from '../../src/index.node.js';
import { API_KEY, boundaryOf, expectedBody, useCaptureServer, useTempDir, useWebUploads } from './support.js';

const capture = useCaptureServer();
const SIZE = 3 * 1024 * 1024 + 17; // several chunks of every source
const CONTENT = Uint8Array.from({ length: SIZE }, (_, index) => (index * 31) % 251);

const temp = useTempDir('svc-sdk-progress-');
const path = temp.file('big.pdf');
beforeAll(() => writeFile(path, CONTENT));

function chunked(): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < SIZE; offset += 65_536) chunks.push(CONTENT.subarray(offset, offset + 65_536));
  return chunks;
}

const inputs: Array<[string, () => Promise<Parameters<Client['documents']['upload']>[1]>, boolean]> = [
  ['a Blob', async () => new Blob([CONTENT]), true],
  ['a Uint8Array', async () => CONTENT, true],
  ['an ArrayBuffer', async () => CONTENT.slice().buffer, true],
  ['fileFromPath', () => fileFromPath(path), true],
  ['an fs.createReadStream', async () => createReadStream(path), true],
  ['a Node Readable', async () => Readable.from(chunked().map((chunk) => Buffer.from(chunk))), false],
  ['a web ReadableStream', async () => new Blob(chunked() as BlobPart[]).stream(), false],
];

describe('onUploadProgress', () => {
  it.each(inputs)('fires for %s: monotonic, ending at the body size (total %s)', async (_, make, totalKnown) => {
    const events: UploadProgress[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
    await client.documents.upload(5, await make(), { filename: 'big.pdf', onUploadProgress: (event) => events.push(event) });

    const request = capture.only();
    // Progress must not change the request: same bytes, and the Content-Length when it is known.
    expect(request.body.equals(expectedBody(boundaryOf(request), 'big.pdf', 'application/pdf', CONTENT))).toBe(true);
    expect(events.length).toBeGreaterThan(2);
    for (let index = 1; index < events.length; index++) {
      expect(events[index]!.loaded).toBeGreaterThan(events[index - 1]!.loaded);
    }
    expect(events.at(-1)!.loaded).toBe(request.body.length);
    if (totalKnown) {
      expect(request.headers['content-length']).toBe(String(request.body.length));
      expect(events.every((event) => event.total === request.body.length)).toBe(true);
    } else {
      expect(events.every((event) => event.total === undefined)).toBe(true);
    }
  });

  it('reports at most once per 64 KiB sent and never the same count twice, and ends at the body size', async () => {
    const events: UploadProgress[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
    await client.documents.upload(5, CONTENT, { filename: 'big.pdf', onUploadProgress: (event) => events.push(event) });
    const size = capture.only().body.length;
    const steps = events.slice(0, -1).map((event, index) => event.loaded - (index === 0 ? 0 : events[index - 1]!.loaded));
    // Node's fetch takes 8 KiB chunks: a report every 8 chunks, 64 KiB apart, then the last at the end.
    expect(steps.every((step) => step >= 64 * 1024 && step < 80 * 1024)).toBe(true);
    expect(events.length).toBeLessThanOrEqual(Math.ceil(size / (64 * 1024)) + 2);
    expect(events.at(-1)).toEqual({ loaded: size, total: size });
    expect(new Set(events.map((event) => event.loaded)).size).toBe(events.length);
  });

  it('fires on the browsers\' branch too (a Blob body), with the Blob\'s exact total', async () => {
    const events: UploadProgress[] = [];
    useWebUploads();
    const client = new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
    await client.documents.upload(5, new File([CONTENT], 'big.pdf'), { onUploadProgress: (event) => events.push(event) });
    const request = capture.only();
    expect(events.at(-1)).toEqual({ loaded: request.body.length, total: request.body.length });
  });

  it('an empty file reports once, at 0 of the framing size', async () => {
    const events: UploadProgress[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
    await client.documents.upload(5, new Uint8Array(0), { filename: 'empty.txt', onUploadProgress: (event) => events.push(event) });
    const request = capture.only();
    expect(events.at(-1)).toEqual({ loaded: request.body.length, total: request.body.length });
  });
});
