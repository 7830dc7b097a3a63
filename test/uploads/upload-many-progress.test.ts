import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client, type UploadManyProgress } from '../../src/index.node.js';
import { useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, storeEveryUpload } from './upload-many-support.js';

// uploadMany's progress figures, each as the type documents it.

const service = useLoopbackServer();

describe('documents.uploadMany progress', () => {
  it('bytesPerSecond is the bytes sent over the time elapsed, in every report, and no report repeats the one before', async () => {
    const root = makeTree({ 'a.bin': new Uint8Array(300 * 1024).fill(1), 'b.bin': new Uint8Array(200 * 1024).fill(2) });
    storeEveryUpload(service);
    const seen: UploadManyProgress[] = [];
    await new Client({ apiKey: API_KEY, baseUrl: service.url }).documents.uploadMany(1, join(root, 'tree'), { concurrency: 1, onProgress: (progress) => seen.push({ ...progress }) });
    expect(seen.length).toBeGreaterThan(4);
    expect(seen.at(-1)).toMatchObject({ filesDone: 2, filesTotal: 2, bytesDone: 500 * 1024, bytesTotal: 500 * 1024 });
    // Each report says something new: a file done, bytes sent, or (at the end of an iterable) the totals.
    const said = seen.map(({ filesDone, bytesDone, filesTotal, bytesTotal }) => JSON.stringify([filesDone, bytesDone, filesTotal, bytesTotal]));
    expect(said.filter((key, index) => index > 0 && key === said[index - 1])).toEqual([]);
    for (const progress of seen) {
      expect(progress.elapsedMs).toBeGreaterThan(0);
      expect(progress.bytesPerSecond).toBeCloseTo((progress.bytesDone * 1000) / progress.elapsedMs, 6);
    }
  });
});
