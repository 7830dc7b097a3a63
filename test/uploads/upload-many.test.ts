import { readFileSync, rmSync, symlinkSync, writeFileSync, utimesSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { APITimeoutError, Client, InternalServerError, ValidationError, type UploadManyProgress } from '../../src/index.node.js';
import { API_KEY, emulatorWithRoom, makeTree, openFlags, sha256 } from './upload-many-support.js';

// documents.uploadMany over real sockets against the emulator; what the emulator stored is read
// from its own `document.uploaded` events (stored()), never from the client's view.

const FILES = {
  'b.txt': 'second by name',
  'a.txt': 'first by name',
  'sub/c.txt': 'in a folder',
  'sub/deeper/d.bin': new Uint8Array(300_000).fill(7),
  'a-z.txt': "sorts before 'a/' would, after 'a.txt'",
};

describe('documents.uploadMany(roomId, directory)', () => {
  it('uploads every file below the directory once, in code-unit order of the relative path, each with its SHA-256', async () => {
    const root = makeTree(FILES);
    const { client, roomId, stored } = await emulatorWithRoom();
    const result = await client.documents.uploadMany(roomId, join(root, 'tree'));
    expect(result.uploaded.map((file) => file.path)).toEqual(['a-z.txt', 'a.txt', 'b.txt', 'sub/c.txt', 'sub/deeper/d.bin']);
    expect(result.skipped).toEqual([]);
    expect(result.failed).toEqual([]);
    expect(result.unknown).toEqual([]);
    for (const file of result.uploaded) {
      const content = FILES[file.path as keyof typeof FILES];
      expect(file.sha256).toBe(sha256(content));
      expect(file.size).toBe(typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength);
      expect(file.document).toMatchObject({ original_filename: file.path.split('/').pop(), size: file.size });
    }
    expect(await stored()).toEqual({ 'a-z.txt': 1, 'a.txt': 1, 'b.txt': 1, 'c.txt': 1, 'd.bin': 1 });
  });

  it('does not follow symbolic links, to files or to directories', async () => {
    const root = makeTree({ 'real.txt': 'real', 'dir/inner.txt': 'inner' });
    symlinkSync(join(root, 'tree', 'real.txt'), join(root, 'tree', 'link.txt'));
    symlinkSync(join(root, 'tree', 'dir'), join(root, 'tree', 'linked-dir'));
    const { client, roomId, stored } = await emulatorWithRoom();
    const result = await client.documents.uploadMany(roomId, join(root, 'tree'));
    expect(result.uploaded.map((file) => file.path)).toEqual(['dir/inner.txt', 'real.txt']);
    expect(await stored()).toEqual({ 'inner.txt': 1, 'real.txt': 1 });
  });

  it('a rerun with the manifest sends nothing stored before, and sends a file whose content changed', async () => {
    const root = makeTree(FILES);
    const manifest = join(root, 'manifest.jsonl');
    const { client, roomId, stored, emulator } = await emulatorWithRoom();
    const first = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(first.uploaded).toHaveLength(5);
    const second = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(second.uploaded).toEqual([]);
    expect(second.skipped.map(({ path, documentId, sha256: hash }) => ({ path, documentId, sha256: hash }))).toEqual(
      first.uploaded.map(({ path, document, sha256: hash }) => ({ path, documentId: document.id, sha256: hash })),
    );
    // Same size, same mtime, other bytes: only the hash tells.
    const changed = join(root, 'tree', 'b.txt');
    const { mtime } = await import('node:fs').then((fs) => fs.statSync(changed));
    writeFileSync(changed, 'SECOND BY NAME');
    utimesSync(changed, mtime, mtime);
    emulator.faults.latencyMs = 0;
    const third = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(third.uploaded.map((file) => file.path)).toEqual(['b.txt']);
    expect(third.skipped).toHaveLength(4);
    expect(await stored()).toEqual({ 'a-z.txt': 1, 'a.txt': 1, 'b.txt': 2, 'c.txt': 1, 'd.bin': 1 });
  });

  it("makes each file's request only once its sending line is synced to disk, on a slow disk too", async () => {
    const root = makeTree({ '1.txt': '1', '2.txt': '2', '3.txt': '3' });
    const manifest = join(root, 'manifest.jsonl');
    // A slow disk: every write through a FileHandle takes 100 ms more. The manifest is opened with
    // O_DSYNC (Linux, macOS), so its write is its sync; where there is none (Windows) it datasyncs.
    const probe = await open(join(root, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const syncing = process.platform === 'win32' ? 'datasync' : 'write';
    const original = (prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[syncing]!;
    let synced = 0;
    vi.spyOn(prototype as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>, syncing).mockImplementation(async function (this: unknown, ...args: unknown[]) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const result = await original.apply(this, args);
      synced += 1;
      return result;
    });
    onTestFinished(() => {
      vi.restoreAllMocks();
    });
    const { server, roomId } = await emulatorWithRoom();
    const syncedAtRequest: number[] = [];
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: server.url,
      fetch: (input, init) => {
        syncedAtRequest.push(synced);
        manifestFlags ??= openFlags(manifest);
        return fetch(input, init);
      },
    });
    let manifestFlags: number | undefined;
    const result = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest, concurrency: 1 });
    expect(result.uploaded).toHaveLength(3);
    // On Linux the kernel shows how the manifest is open: O_DSYNC (0o10000), so a write is durable when it returns.
    if (process.platform === 'linux') expect(manifestFlags! & 0o10000).toBe(0o10000);
    // One sync per file: sending 1 → request 1; outcome 1 and sending 2 in one write (the outcome
    // line waits a turn for the next sending line) → request 2; ...; outcome 3 when the run ends.
    expect(syncedAtRequest).toEqual([1, 2, 3]);
    expect(synced).toBe(4);
    expect(readFileSync(manifest, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).state)).toEqual([
      'sending', 'uploaded', 'sending', 'uploaded', 'sending', 'uploaded',
    ]);
  });

  it('refuses a file changed since the listing: grown, shrunk or gone is failed with a ValidationError naming it, nothing of it sent', async () => {
    const root = makeTree({ '1.txt': 'one', '2.txt': 'two', '3.txt': 'three', '4.txt': 'four' });
    const manifest = join(root, 'manifest.jsonl');
    const { server, roomId, stored } = await emulatorWithRoom();
    let changed = false;
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: server.url,
      fetch: (input, init) => {
        // After the listing, while the first file is sent: one file goes, one grows, one shrinks.
        if (!changed) {
          changed = true;
          rmSync(join(root, 'tree', '2.txt'));
          writeFileSync(join(root, 'tree', '3.txt'), 'three, and more');
          writeFileSync(join(root, 'tree', '4.txt'), '4');
        }
        return fetch(input, init);
      },
    });
    const result = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest, concurrency: 1 });
    expect(result.uploaded.map(({ path, sha256: hash, document }) => [path, hash, document.size])).toEqual([['1.txt', sha256('one'), 3]]);
    expect(result.failed.map(({ path, error }) => [path, error instanceof ValidationError, (error as Error).message])).toEqual([
      ['2.txt', true, expect.stringContaining('"2.txt" cannot be opened (ENOENT): nothing was sent')],
      ['3.txt', true, expect.stringContaining('"3.txt" changed size since it was listed (5 → 15 bytes): nothing was sent')],
      ['4.txt', true, expect.stringContaining('"4.txt" changed size since it was listed (4 → 1 bytes): nothing was sent')],
    ]);
    expect(await stored()).toEqual({ '1.txt': 1 });
    const lines = readFileSync(manifest, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { path: string; state: string });
    expect(lines.filter((line) => line.path === '2.txt').map((line) => line.state)).toEqual(['sending', 'failed']);
    // The rerun lists the files anew and sends them as they are now.
    const rerun = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest, concurrency: 1 });
    expect(rerun.uploaded.map(({ path, sha256: hash }) => [path, hash])).toEqual([['3.txt', sha256('three, and more')], ['4.txt', sha256('4')]]);
  });

  it('stopOnError: a file that cannot be opened stops the run like any failure; the files after it are not sent', async () => {
    const root = makeTree({ '1.txt': 'one', '2.txt': 'two', '3.txt': 'three' });
    const { server, roomId, stored } = await emulatorWithRoom();
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: server.url,
      fetch: (input, init) => {
        rmSync(join(root, 'tree', '2.txt'), { force: true });
        return fetch(input, init);
      },
    });
    const result = await client.documents.uploadMany(roomId, join(root, 'tree'), { concurrency: 1, stopOnError: true });
    expect(result.uploaded.map((file) => file.path)).toEqual(['1.txt']);
    expect(result.failed.map(({ path, error }) => [path, (error as Error).message])).toEqual([['2.txt', expect.stringContaining('ENOENT')]]);
    expect(result.notStarted.map((file) => file.path)).toEqual(['3.txt']);
    expect(result.stopped).toMatchObject({ reason: 'stopOnError', message: expect.stringContaining('ENOENT') });
    expect(await stored()).toEqual({ '1.txt': 1 });
  });

  it('leaves its own manifest out when it lies inside the directory, with its lock and a compaction copy left by a kill', async () => {
    const root = makeTree({ 'a.txt': 'a', 'upload.manifest.compact': '{"path":"x","state":"sending"}\n' });
    const { client, roomId, stored } = await emulatorWithRoom();
    const result = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest: join(root, 'tree', 'upload.manifest') });
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(await stored()).toEqual({ 'a.txt': 1 });
  });

  it('a 503 answer after the whole body is unknown (it may be stored): the rerun sends those files only with retryUnknown', async () => {
    const root = makeTree({ '1.txt': '1', '2.txt': '2', '3.txt': '3', '4.txt': '4' });
    const manifest = join(root, 'manifest.jsonl');
    // Every 2nd request: the 4th and the 6th (creating the room and the webhook were the 1st and 2nd).
    const { client, roomId, stored, emulator } = await emulatorWithRoom({ unavailableRate: 0.5 });
    const first = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest, concurrency: 1 });
    expect(first.uploaded.map((file) => file.path)).toEqual(['1.txt', '3.txt']);
    expect(first.unknown.map((file) => file.path)).toEqual(['2.txt', '4.txt']);
    expect(first.unknown[0]!.error).toBeInstanceOf(InternalServerError);
    expect((first.unknown[0]!.error as InternalServerError).status).toBe(503);
    emulator.faults.unavailableRate = 0;
    const plain = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(plain.unknown.map((file) => file.path)).toEqual(['2.txt', '4.txt']);
    expect(plain.uploaded).toEqual([]);
    const second = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest, retryUnknown: true });
    expect(second.uploaded.map((file) => file.path)).toEqual(['2.txt', '4.txt']);
    expect(second.skipped.map((file) => file.path)).toEqual(['1.txt', '3.txt']);
    expect(await stored()).toEqual({ '1.txt': 1, '2.txt': 1, '3.txt': 1, '4.txt': 1 });
  });

  it('a reset before the whole body was sent is failed, and the rerun sends it', async () => {
    const big = new Uint8Array(4 * 1024 * 1024).fill(1);
    const root = makeTree({ 'big.bin': big, 'small.txt': 'small' });
    const manifest = join(root, 'manifest.jsonl');
    const { client, roomId, stored, emulator } = await emulatorWithRoom({ resetAfterBytes: 64 * 1024 });
    const first = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(first.failed.map((file) => file.path)).toEqual(['big.bin']);
    expect(first.uploaded.map((file) => file.path)).toEqual(['small.txt']);
    expect(await stored()).toEqual({ 'small.txt': 1 });
    emulator.faults.resetAfterBytes = undefined;
    const second = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(second.uploaded.map((file) => file.path)).toEqual(['big.bin']);
    expect(second.uploaded[0]!.sha256).toBe(sha256(big));
    expect(await stored()).toEqual({ 'big.bin': 1, 'small.txt': 1 });
  });

  it('a timeout after the body was sent is unknown: stored by the emulator, never resent without retryUnknown', async () => {
    const root = makeTree({ 'slow.txt': 'answered too late' });
    const manifest = join(root, 'manifest.jsonl');
    const { client, roomId, stored, emulator, server } = await emulatorWithRoom();
    emulator.faults.latencyMs = 1_000;
    const impatient = new Client({ apiKey: 'vdr_upload_many_test', baseUrl: server.url, timeout: 200 });
    const first = await impatient.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(first.unknown.map((file) => file.path)).toEqual(['slow.txt']);
    expect(first.unknown[0]!.error).toBeInstanceOf(APITimeoutError);
    expect(await stored()).toEqual({ 'slow.txt': 1 });
    emulator.faults.latencyMs = 0;
    const second = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(second.unknown).toEqual([{ path: 'slow.txt', size: 17, error: undefined }]);
    expect(second.uploaded).toEqual([]);
    expect(await stored()).toEqual({ 'slow.txt': 1 });
    const third = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest, retryUnknown: true });
    expect(third.uploaded.map((file) => file.path)).toEqual(['slow.txt']);
    expect(await stored()).toEqual({ 'slow.txt': 2 });
    const fourth = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(fourth.skipped.map((file) => file.documentId)).toEqual([third.uploaded[0]!.document.id]);
  });

  it('an answer larger than maxResponseBytes is unknown: the emulator stored the file, its answer was not read', async () => {
    const root = makeTree({ 'stored.txt': 'stored, answer refused' });
    const { client, roomId, stored } = await emulatorWithRoom();
    // The document's JSON is well over 64 bytes: the core fails the call while reading it, after the 201.
    const result = await client.documents.uploadMany(roomId, join(root, 'tree'), { maxResponseBytes: 64 });
    expect(result.uploaded).toEqual([]);
    expect(result.failed).toEqual([]);
    expect(result.unknown.map((file) => file.path)).toEqual(['stored.txt']);
    expect((result.unknown[0]!.error as Error).message).toContain('larger than maxResponseBytes (64 bytes');
    expect(await stored()).toEqual({ 'stored.txt': 1 });
  });

  it('stopOnError starts no file after the first failure; the files not started are notStarted and a rerun sends them', async () => {
    const root = makeTree({ '1.txt': '1', '2.txt': '2', '3.txt': '3', '4.txt': '4' });
    const manifest = join(root, 'manifest.jsonl');
    const { client, roomId, stored, emulator } = await emulatorWithRoom({ unavailableRate: 0.5 });
    const first = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest, concurrency: 1, stopOnError: true });
    expect(first.uploaded.map((file) => file.path)).toEqual(['1.txt']);
    expect(first.unknown.map((file) => file.path)).toEqual(['2.txt']);
    expect(first.failed).toEqual([]);
    expect(first.notStarted.map((file) => file.path)).toEqual(['3.txt', '4.txt']);
    expect(first.stopped).toMatchObject({ reason: 'stopOnError', message: expect.stringContaining('[svc-sdk] documents.uploadMany: stopped after the first file that failed (stopOnError): POST ') });
    emulator.faults.unavailableRate = 0;
    const second = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest, retryUnknown: true });
    expect(second.uploaded.map((file) => file.path)).toEqual(['2.txt', '3.txt', '4.txt']);
    expect(await stored()).toEqual({ '1.txt': 1, '2.txt': 1, '3.txt': 1, '4.txt': 1 });
  });

  it('reports progress that never goes back and ends at the totals', async () => {
    const root = makeTree({ ...FILES, 'sub/e.bin': new Uint8Array(1_000_000).fill(3) });
    const { client, roomId } = await emulatorWithRoom();
    const seen: UploadManyProgress[] = [];
    await client.documents.uploadMany(roomId, join(root, 'tree'), { concurrency: 3, onProgress: (progress) => seen.push(progress) });
    const bytesTotal = Object.values(FILES).reduce((sum, content) => sum + Buffer.byteLength(content as string), 0) + 1_000_000;
    expect(seen.length).toBeGreaterThan(6 + 1_000_000 / (64 * 1024));
    for (const [index, progress] of seen.entries()) {
      expect(progress.filesTotal).toBe(6);
      expect(progress.bytesTotal).toBe(bytesTotal);
      if (index === 0) continue;
      const before = seen[index - 1]!;
      expect(progress.filesDone).toBeGreaterThanOrEqual(before.filesDone);
      expect(progress.bytesDone).toBeGreaterThanOrEqual(before.bytesDone);
      expect(progress.elapsedMs).toBeGreaterThanOrEqual(before.elapsedMs);
      expect(progress.bytesDone).toBeLessThanOrEqual(bytesTotal);
    }
    expect(seen.at(-1)).toMatchObject({ filesDone: 6, bytesDone: bytesTotal });
    expect(seen.at(-1)!.bytesPerSecond).toBeGreaterThan(0);
  });

  it('an abort stops at once: in-flight files end unknown or failed, the rest notStarted, the manifest complete', async () => {
    const root = makeTree({ '1.txt': '1', '2.txt': '2', '3.txt': '3', '4.txt': '4', '5.txt': '5' });
    const manifest = join(root, 'manifest.jsonl');
    // 10 minutes of latency: only an abort that does not wait for answers lets this test end.
    const { client, roomId, stored, emulator } = await emulatorWithRoom({ latencyMs: 600_000 });
    const controller = new AbortController();
    const started: string[] = [];
    const run = client.documents.uploadMany(roomId, join(root, 'tree'), {
      manifest,
      concurrency: 2,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.bytesDone >= 2 && started.length === 0) {
          started.push('abort');
          setTimeout(() => controller.abort(new Error('stopped by the test')), 50);
        }
      },
    });
    const result = await run;
    expect(result.unknown.map((file) => file.path)).toEqual(['1.txt', '2.txt']);
    expect(result.failed).toEqual([]);
    expect(result.notStarted.map((file) => file.path)).toEqual(['3.txt', '4.txt', '5.txt']);
    expect(result.stopped).toMatchObject({ reason: 'aborted', message: expect.stringContaining('aborted by its signal (stopped by the test)') });
    const lines = readFileSync(manifest, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { path: string; state: string });
    expect(lines.map(({ path, state }) => `${path} ${state}`).sort()).toEqual(['1.txt sending', '1.txt unknown', '2.txt sending', '2.txt unknown']);
    emulator.faults.latencyMs = 0;
    expect(Object.keys(await stored()).sort()).toEqual(['1.txt', '2.txt']);
  });
});

describe('documents.uploadMany(roomId, iterable)', () => {
  it('uploads Blobs, bytes and streams of an async iterable, in input order, under their filenames', async () => {
    const { client, roomId, stored } = await emulatorWithRoom();
    async function* inputs() {
      yield { file: new Blob(['blob']), filename: 'blob.txt' };
      yield { file: new TextEncoder().encode('bytes'), filename: 'bytes.txt' };
      yield { file: new Blob(['stream']).stream(), filename: 'stream.txt', contentType: 'text/x-custom' };
    }
    const result = await client.documents.uploadMany(roomId, inputs(), { concurrency: 2 });
    expect(result.uploaded.map(({ path, size, document }) => [path, size, document.size, document.content_type])).toEqual([
      ['blob.txt', 4, 4, 'text/plain'],
      ['bytes.txt', 5, 5, 'text/plain'],
      ['stream.txt', undefined, 6, 'text/x-custom'],
    ]);
    expect(await stored()).toEqual({ 'blob.txt': 1, 'bytes.txt': 1, 'stream.txt': 1 });
  });

  it('an iterable that throws: no file started after it, the files read before settle (their lines written), then the error', async () => {
    const root = makeTree({});
    const manifest = join(root, 'manifest.jsonl');
    const { client, roomId, stored } = await emulatorWithRoom();
    let closed = false;
    async function* inputs() {
      try {
        yield { file: new Blob(['one']), filename: 'one.txt' };
        yield { file: new Blob(['two']), filename: 'two.txt' };
        throw new Error('the document system went away');
      } finally {
        closed = true;
      }
    }
    await expect(client.documents.uploadMany(roomId, inputs(), { manifest, concurrency: 1 })).rejects.toThrow('the document system went away');
    expect(closed).toBe(true);
    expect(readFileSync(manifest, 'utf8').trimEnd().split('\n').map((line) => (JSON.parse(line) as { path: string; state: string }).state)).toEqual([
      'sending',
      'uploaded',
      'sending',
      'uploaded',
    ]);
    expect(await stored()).toEqual({ 'one.txt': 1, 'two.txt': 1 });
  });

  it('stopOnError ends an iterable read in part: its generator is closed', async () => {
    const { client, roomId, emulator } = await emulatorWithRoom();
    emulator.faults.unavailableRate = 1;
    let read = 0;
    let closed = false;
    async function* inputs() {
      try {
        for (;;) {
          read += 1;
          yield { file: new Blob([`file ${read}`]), filename: `${read}.txt` };
        }
      } finally {
        closed = true;
      }
    }
    const result = await client.documents.uploadMany(roomId, inputs(), { concurrency: 1, stopOnError: true });
    expect(result.unknown.map((file) => file.path)).toEqual(['1.txt']);
    expect(read).toBe(1);
    expect(closed).toBe(true);
  });

  it('with a manifest: skips what was stored (by name, size and SHA-256), and refuses streams and repeated names', async () => {
    const root = makeTree({});
    const manifest = join(root, 'manifest.jsonl');
    const { client, roomId, stored } = await emulatorWithRoom();
    const inputs = () => [
      { file: new Blob(['one']), filename: 'one.txt' },
      { file: new Blob(['stream']).stream(), filename: 'stream.txt' },
      { file: new Blob(['again']), filename: 'one.txt' },
      { file: new TextEncoder().encode('two'), filename: 'two.txt' },
    ];
    const first = await client.documents.uploadMany(roomId, inputs(), { manifest });
    expect(first.uploaded.map((file) => [file.path, file.sha256])).toEqual([
      ['one.txt', sha256('one')],
      ['two.txt', sha256('two')],
    ]);
    expect(first.failed.map((file) => [file.path, (file.error as ValidationError).message])).toEqual([
      ['stream.txt', '[svc-sdk] documents.uploadMany: inputs.1.file: with a manifest each file must be a Blob, File (fileFromPath) or bytes, so a rerun can compare it; pass a directory path for files on disk. Nothing was sent.'],
      ['one.txt', '[svc-sdk] documents.uploadMany: inputs.2.filename: filename "one.txt" came twice: with a manifest each file needs its own name. Nothing was sent.'],
    ]);
    const second = await client.documents.uploadMany(roomId, [inputs()[0]!, { file: new Blob(['TWO']), filename: 'two.txt' }], { manifest });
    expect(second.skipped.map((file) => file.path)).toEqual(['one.txt']);
    expect(second.uploaded.map((file) => file.path)).toEqual(['two.txt']);
    expect(await stored()).toEqual({ 'one.txt': 1, 'two.txt': 2 });
  });
});

describe('documents.uploadMany refuses bad arguments before sending anything', () => {
  it.each([
    [0, 'dir', {}, 'roomId: roomId must be a positive integer id, as the service returned it'],
    [1, '', {}, 'inputs: inputs must be a directory path, or an iterable or async iterable of { file, filename }'],
    [1, 42, {}, 'inputs: inputs must be a directory path, or an iterable or async iterable of { file, filename }'],
    [1, 'dir', { concurrency: 0 }, 'concurrency: concurrency must be a whole number from 1 to 64'],
    [1, 'dir', { concurrency: 65 }, 'concurrency: concurrency must be a whole number from 1 to 64'],
    [1, 'dir', { concurrency: 1.5 }, 'concurrency: concurrency must be a whole number from 1 to 64'],
    [1, 'dir', { manifest: '' }, 'manifest: manifest must be the path of a file (created when missing)'],
  ])('uploadMany(%j, %j, %j)', async (roomId, inputs, options, message) => {
    const requests: string[] = [];
    const client = new Client({ apiKey: 'vdr_x', baseUrl: 'http://127.0.0.1:9', fetch: async (input) => (requests.push(String(input)), new Response()) });
    await expect(client.documents.uploadMany(roomId, inputs as never, options)).rejects.toThrow(
      new ValidationError('documents.uploadMany', [{ path: [message.split(':')[0]!], message: message.slice(message.indexOf(': ') + 2) }]),
    );
    expect(requests).toEqual([]);
  });

  it('names a directory that cannot be read', async () => {
    const client = new Client({ apiKey: 'vdr_x', baseUrl: 'http://127.0.0.1:9' });
    await expect(client.documents.uploadMany(1, '/no/such/dir')).rejects.toThrow(
      '[svc-sdk] documents.uploadMany: inputs: cannot read the directory "/no/such/dir" (ENOENT): pass the path of a readable directory. Nothing was sent.',
    );
  });

  it('names a manifest line that is not a record (a complete line: not a crash)', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    writeFileSync(join(root, 'manifest.jsonl'), '{"path":"a.txt","state":"sending","size":1}\n{"path":"a.txt","state":"stored"}\n');
    const client = new Client({ apiKey: 'vdr_x', baseUrl: 'http://127.0.0.1:9' });
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest: join(root, 'manifest.jsonl') })).rejects.toThrow(
      `[svc-sdk] documents.uploadMany: manifest "${join(root, 'manifest.jsonl')}" has a line 2 that is not a record of svc-sdk: restore the file or pass another manifest (a line cut short by a crash, at the very end, is dropped without this error). Nothing was sent.`,
    );
  });
});
