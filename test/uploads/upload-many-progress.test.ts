import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { Client, type UploadManyInput, type UploadManyProgress, type UploadProgress } from '../../src/index.node.js';
import { useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, storeEveryUpload } from './upload-many-support.js';

// uploadMany's progress figures, each as the type documents it.

const service = useLoopbackServer();

describe('documents.uploadMany progress', () => {
  it('bytesPerSecond is the bytes sent over the time elapsed, in every report, and no report repeats the one before', async () => {
    // c.txt is empty: its upload moves no byte of content, so it adds no report of its own before it is done.
    const root = makeTree({ 'a.bin': new Uint8Array(300 * 1024).fill(1), 'b.bin': new Uint8Array(200 * 1024).fill(2), 'c.txt': '' });
    storeEveryUpload(service);
    const seen: UploadManyProgress[] = [];
    await new Client({ apiKey: API_KEY, baseUrl: service.url }).documents.uploadMany(1, join(root, 'tree'), { concurrency: 1, onProgress: (progress) => seen.push({ ...progress }) });
    expect(seen.length).toBeGreaterThan(4);
    expect(seen.at(-1)).toMatchObject({ filesDone: 3, filesTotal: 3, bytesDone: 500 * 1024, bytesTotal: 500 * 1024 });
    // Each report says something new: a file done, bytes sent, or (at the end of an iterable) the totals.
    const said = seen.map(({ filesDone, bytesDone, filesTotal, bytesTotal }) => JSON.stringify([filesDone, bytesDone, filesTotal, bytesTotal]));
    expect(said.filter((key, index) => index > 0 && key === said[index - 1])).toEqual([]);
    for (const progress of seen) {
      expect(progress.elapsedMs).toBeGreaterThan(0);
      expect(progress.bytesPerSecond).toBeCloseTo((progress.bytesDone * 1000) / progress.elapsedMs, 6);
    }
  });

  it('elapsedMs is the time since the run started: never more than the caller measured around the whole call', async () => {
    storeEveryUpload(service);
    const seen: UploadManyProgress[] = [];
    const before = performance.now();
    await new Client({ apiKey: API_KEY, baseUrl: service.url }).documents.uploadMany(1, [{ file: new Blob(['abc']), filename: 'a.txt' }], { onProgress: (progress) => seen.push(progress) });
    const measured = performance.now() - before;
    expect(seen.length).toBeGreaterThan(0);
    for (const progress of seen) expect(progress.elapsedMs).toBeLessThanOrEqual(measured);
  });

  it("a report made before the clock moved (a browser's performance.now is coarse) says 0 bytes per second, not NaN", async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    onTestFinished(() => void vi.useRealTimers());
    const seen: UploadManyProgress[] = [];
    // A nameless input fails at once, before any I/O: its report comes at the clock's first reading.
    await new Client({ apiKey: API_KEY, baseUrl: service.url }).documents.uploadMany(1, [{ file: new Blob(['a']), filename: '' }], { onProgress: (progress) => seen.push(progress) });
    expect(seen).toEqual([expect.objectContaining({ filesDone: 1, bytesDone: 0, elapsedMs: 0, bytesPerSecond: 0 })]);
  });

  it("an iterable's totals are unknown while it is read, then the last report gives the files and the sum of their sizes", async () => {
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const run = async (inputs: UploadManyInput[]) => {
      const seen: UploadManyProgress[] = [];
      async function* oneByOne() {
        yield* inputs;
      }
      await client.documents.uploadMany(1, oneByOne(), { concurrency: 1, onProgress: (progress) => seen.push({ ...progress }) });
      return seen;
    };
    const known = await run([{ file: new Blob(['abc']), filename: 'a' }, { file: new Uint8Array(4), filename: 'b' }]);
    expect(known.slice(0, -1).map(({ filesTotal, bytesTotal }) => [filesTotal, bytesTotal])).toEqual(known.slice(0, -1).map(() => [undefined, undefined]));
    expect(known.at(-1)).toMatchObject({ filesDone: 2, filesTotal: 2, bytesDone: 7, bytesTotal: 7 });
    // A stream's size is not known before it is read: nor is the total, whatever follows it.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(2));
        controller.close();
      },
    });
    const unknown = await run([{ file: stream, filename: 's' }, { file: new Blob(['abc']), filename: 'a' }]);
    expect(unknown.at(-1)).toMatchObject({ filesDone: 2, filesTotal: 2, bytesTotal: undefined });
    expect('bytesTotal' in unknown.at(-1)!).toBe(true);
  });

  it.each([
    ['without a manifest', false],
    ['with a manifest (the file hashed as it is sent)', true],
  ])("bytesDone of a file being sent is documents.upload's loaded less the multipart framing (%s)", async (_, withManifest) => {
    const root = makeTree({});
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const content = new Uint8Array(200_000).fill(7);
    // The same file alone: what documents.upload reports of its body, framing included.
    const loaded: UploadProgress[] = [];
    await client.documents.upload(1, content, { filename: 'b.bin', onUploadProgress: (progress) => loaded.push(progress) });
    const framing = loaded.at(-1)!.total! - content.byteLength;
    expect(framing).toBeGreaterThan(0);
    const seen: UploadManyProgress[] = [];
    await client.documents.uploadMany(1, [{ file: content, filename: 'b.bin' }], {
      manifest: withManifest ? join(root, 'm.jsonl') : undefined,
      onProgress: (progress) => seen.push({ ...progress }),
    });
    expect(seen.filter((progress) => progress.filesDone === 0).map((progress) => progress.bytesDone)).toEqual(loaded.map((progress) => progress.loaded - framing));
    expect(seen.at(-1)).toMatchObject({ filesDone: 1, bytesDone: content.byteLength, bytesTotal: content.byteLength });
    // Both bodies went with their Content-Length, as the same bytes.
    expect(service.requests.map((request) => [request.headers['content-length'], request.headers['transfer-encoding']])).toEqual([
      [String(content.byteLength + framing), undefined],
      [String(content.byteLength + framing), undefined],
    ]);
  });

  it('bytesDone of streams whose size is not known ahead (a generator, an fs stream) counts every byte of them', async () => {
    const root = makeTree({});
    writeFileSync(join(root, 'f.bin'), new Uint8Array(100_000));
    storeEveryUpload(service);
    async function* chunks() {
      yield new Uint8Array(70_000);
      yield new Uint8Array(30_000);
    }
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    for (const file of [chunks(), createReadStream(join(root, 'f.bin'))]) {
      const seen: UploadManyProgress[] = [];
      const result = await client.documents.uploadMany(1, [{ file, filename: 'f.bin' }], { onProgress: (progress) => seen.push(progress) });
      expect(result.uploaded).toHaveLength(1);
      // (Counted from the body, whose multipart framing a body of unknown length cannot tell apart.)
      expect(seen.at(-1)!.bytesDone).toBeGreaterThanOrEqual(100_000);
      expect(seen.at(-1)!.bytesDone).toBeLessThan(100_000 + 1024);
    }
  });
});
