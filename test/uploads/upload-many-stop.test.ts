import { getEventListeners } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { APIUserAbortError, APITimeoutError, Client, type UploadManyProgress } from '../../src/index.node.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, sha256 } from './upload-many-support.js';

// Nothing escapes the pool: a throwing callback, a stop, a stream that never yields its first chunk.
// The run settles only once every file started has its outcome, on disk.

const service = useLoopbackServer();

const stored = (id: number) => ({ success: true, data: { id, room_id: 1, original_filename: `f${id}`, size: 1, status: 'stored' } });
const statesOf = (manifest: string) => {
  const last = new Map<string, string>();
  for (const line of readFileSync(manifest, 'utf8').split('\n').filter(Boolean)) {
    const { path, state } = JSON.parse(line) as { path: string; state: string };
    last.set(path, state);
  }
  return Object.fromEntries(last);
};

/** A stream that never yields: its first chunk never comes. */
const silent = () => new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) });

describe('documents.uploadMany: callbacks and stops', () => {
  it('an onProgress that throws is reported once at warn; the run goes on and resolves with every outcome recorded', async () => {
    const root = makeTree({ 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
    const manifest = join(root, 'm.jsonl');
    service.handle((_request, response, index) => setTimeout(() => sendJson(response, 201, stored(index + 1)), 20));
    const warn = vi.fn();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url, logger: { debug() {}, info() {}, warn, error() {} } });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), {
      manifest,
      concurrency: 2,
      onProgress: () => {
        throw new Error('bar broke');
      },
    });
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(statesOf(manifest)).toEqual({ 'a.txt': 'uploaded', 'b.txt': 'uploaded', 'c.txt': 'uploaded' });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toContain('[svc-sdk] documents.uploadMany: onProgress threw (Error: bar broke)');
  });

  it('stopSignal: no new file starts, the files in flight finish (stored, recorded), the rest notStarted', async () => {
    const root = makeTree(Object.fromEntries(Array.from({ length: 6 }, (_, index) => [`f${index}.txt`, `file ${index}`])));
    const manifest = join(root, 'm.jsonl');
    const stop = new AbortController();
    // Both bodies in flight are held unanswered until the second is in: stop, then answer them (no
    // worker is free to start a third before the stop, however slow the machine).
    const held: Array<() => void> = [];
    service.handle((_request, response, index) => {
      held.push(() => sendJson(response, 201, stored(index + 1)));
      if (index === 1) stop.abort();
      // From the second on (the rerun's too), every body held is answered.
      if (index >= 1) for (const answer of held.splice(0)) answer();
    });
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 2, stopSignal: stop.signal });
    expect(result.uploaded.map((file) => file.path)).toEqual(['f0.txt', 'f1.txt']);
    expect(result.notStarted.map((file) => file.path)).toEqual(['f2.txt', 'f3.txt', 'f4.txt', 'f5.txt']);
    expect(result.failed).toEqual([]);
    expect(result.stopped).toEqual({ reason: 'stopSignal', message: expect.stringMatching(/^\[svc-sdk\] documents\.uploadMany: stopped by its stopSignal/), error: expect.anything() });
    expect(service.requests).toHaveLength(2);
    expect(statesOf(manifest)).toMatchObject({ 'f0.txt': 'uploaded', 'f1.txt': 'uploaded' });
    // A rerun sends exactly the files not started.
    const rerun = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(rerun.uploaded.map((file) => file.path)).toEqual(['f2.txt', 'f3.txt', 'f4.txt', 'f5.txt']);
    expect(rerun.skipped.map((file) => file.path)).toEqual(['f0.txt', 'f1.txt']);
  });

  it('a stop that comes while a sending line is written: that body is not sent, its line closed as failed, the file notStarted', async () => {
    const root = makeTree({ 'a.txt': 'a', 'b.txt': 'b' });
    const manifest = join(root, 'm.jsonl');
    const stop = new AbortController();
    // The manifest's first write (a.txt's sending line) is where the stop lands.
    const probe = await open(join(root, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as Record<string, (...args: unknown[]) => Promise<unknown>>;
    await probe.close();
    const original = prototype['write']!;
    vi.spyOn(prototype, 'write').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      stop.abort();
      return original.apply(this, args);
    });
    onTestFinished(() => void vi.restoreAllMocks());
    service.handle((_request, response) => sendJson(response, 201, stored(1)));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1, stopSignal: stop.signal });
    expect(service.requests).toHaveLength(0);
    expect(result.notStarted.map((file) => file.path)).toEqual(['a.txt', 'b.txt']);
    expect(result.stopped?.reason).toBe('stopSignal');
    expect(statesOf(manifest)).toEqual({ 'a.txt': 'failed' });
    // The line says why: a rerun sends the file, and a reader of the manifest sees it was never sent.
    const last = readFileSync(manifest, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { error?: string }).at(-1);
    expect(last?.error).toBe('not sent: the run stopped first');
  });

  it('a manifest that cannot be written stops the run (fatal): no body is sent without its sending line', async () => {
    const root = makeTree({ 'a.txt': 'a', 'b.txt': 'b' });
    const manifest = join(root, 'm.jsonl');
    const probe = await open(join(root, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as Record<string, (...args: unknown[]) => Promise<unknown>>;
    await probe.close();
    vi.spyOn(prototype, 'write').mockRejectedValue(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }));
    onTestFinished(() => void vi.restoreAllMocks());
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    expect(service.requests).toHaveLength(0);
    expect(result.failed.map((file) => file.path)).toEqual(['a.txt']);
    expect(result.notStarted.map((file) => file.path)).toEqual(['b.txt']);
    expect(result.stopped).toMatchObject({ reason: 'fatal', message: '[svc-sdk] documents.uploadMany: the manifest cannot be written (EIO: i/o error, write); no file was started after it' });
  });

  it("a manifest that cannot take a file's outcome line stops the run (fatal): no file is started after it", async () => {
    const root = makeTree({ 'a.txt': 'a', 'b.txt': 'b' });
    const manifest = join(root, 'm.jsonl');
    // b.txt was stored before as other content: it is read (hashed) before it is sent, which lets
    // a.txt's outcome line be written alone, in a write of its own.
    writeFileSync(manifest, `${JSON.stringify({ path: 'b.txt', state: 'uploaded', size: 1, sha256: sha256('B'), documentId: 9, room: 1, origin: service.url })}\n`);
    const probe = await open(join(root, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as Record<string, (...args: unknown[]) => Promise<unknown>>;
    await probe.close();
    const original = prototype['write']!;
    const lines: string[] = [];
    // The manifest's second write (a.txt's `uploaded` line) fails; the others go through.
    vi.spyOn(prototype, 'write').mockImplementation(async function (this: unknown, ...args: unknown[]) {
      lines.push(String(args[0]));
      if (lines.length === 2) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return original.apply(this, args);
    });
    onTestFinished(() => void vi.restoreAllMocks());
    service.handle((_request, response) => sendJson(response, 201, stored(1)));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    expect(lines[1]).toContain('"state":"uploaded"');
    expect([result.uploaded.map((file) => file.path), result.notStarted.map((file) => file.path)]).toEqual([['a.txt'], ['b.txt']]);
    expect(result.stopped).toMatchObject({ reason: 'fatal', message: '[svc-sdk] documents.uploadMany: the manifest cannot be written (ENOSPC: no space left on device, write); no file was started after it' });
    expect(service.requests).toHaveLength(1);
  });

  it('bytesDone never counts a byte not sent: after an abort it stays at what was sent, not the total', async () => {
    const root = makeTree({ 'a.txt': 'aaaa', 'b.txt': 'bbbb', 'c.txt': 'cccc' });
    const controller = new AbortController();
    // a.txt is stored; b.txt is held unanswered, then the run is aborted.
    service.handle((_request, response, index) => {
      if (index === 0) sendJson(response, 201, stored(1));
      else setTimeout(() => controller.abort(new Error('stop now')), 20);
    });
    const seen: UploadManyProgress[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { concurrency: 1, signal: controller.signal, onProgress: (progress) => seen.push(progress) });
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(result.unknown.map((file) => file.path)).toEqual(['b.txt']);
    expect(result.notStarted.map((file) => file.path)).toEqual(['c.txt']);
    expect(result.stopped?.reason).toBe('aborted');
    // 8 bytes were sent (a.txt and b.txt); c.txt's 4 were not.
    expect(seen.at(-1)).toMatchObject({ filesDone: 3, bytesDone: 8, bytesTotal: 12 });
    expect(Math.max(...seen.map((progress) => progress.bytesDone))).toBe(8);
  });

  it('an abort before the first file (while the manifest is being opened): every file notStarted, the run stopped as aborted, nothing sent', async () => {
    const root = makeTree({ 'a.txt': 'a', 'b.txt': 'b' });
    const manifest = join(root, 'manifest.jsonl');
    // An empty lock, just made: the run waits out its second (a kill's leftover?) before it takes it over.
    writeFileSync(`${manifest}.lock`, '');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user left')), 100);
    service.handle((_request, response) => sendJson(response, 201, stored(1)));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, signal: controller.signal });
    expect([result.uploaded, result.failed, result.unknown]).toEqual([[], [], []]);
    expect(result.notStarted.map((file) => file.path)).toEqual(['a.txt', 'b.txt']);
    expect(result.stopped).toMatchObject({ reason: 'aborted', message: '[svc-sdk] documents.uploadMany: aborted by its signal (user left); the files being sent were cut off' });
    expect(service.requests).toHaveLength(0);
    // Nothing recorded: no file was started.
    expect(readFileSync(manifest, 'utf8')).toBe('');
  });

  it('skipped files count in bytesSkipped, not in bytesDone', async () => {
    const root = makeTree({ 'a.txt': 'aaaa' });
    const manifest = join(root, 'm.jsonl');
    service.handle((_request, response) => sendJson(response, 201, stored(1)));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    const seen: UploadManyProgress[] = [];
    await client.documents.uploadMany(1, join(root, 'tree'), { manifest, onProgress: (progress) => seen.push(progress) });
    expect(seen.at(-1)).toMatchObject({ filesDone: 1, bytesDone: 0, bytesSkipped: 4, bytesTotal: 4 });
  });

  it('an iterable whose stream never yields its first chunk: the abort ends the run, nothing hangs', async () => {
    const controller = new AbortController();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const run = client.documents.uploadMany(1, [{ file: silent(), filename: 'never.txt' }, { file: new Blob(['x']), filename: 'later.txt' }], { concurrency: 1, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('enough')), 50);
    const result = await run;
    expect(result.failed.map(({ path, error }) => [path, (error as Error).message])).toEqual([['never.txt', expect.stringContaining("cancelled by the caller's signal (Error: enough)")]]);
    expect(result.notStarted.map((file) => file.path)).toEqual(['later.txt']);
    expect(service.requests).toHaveLength(0);
  });
});

describe('documents.uploadMany: what ends the run', () => {
  it("an iterable that throws: the run rejects with that very error, once the file in flight was sent", async () => {
    service.handle((_request, response) => setTimeout(() => sendJson(response, 201, stored(1)), 30));
    const failure = new Error('the listing went away');
    async function* inputs() {
      yield { file: new Blob(['a']), filename: 'a.txt' };
      throw failure;
    }
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const rejection = await client.documents.uploadMany(1, inputs(), { concurrency: 2 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(rejection).toBe(failure);
    expect(service.requests).toHaveLength(1);
  });

  it('an input that throws when the run reads it (its filename getter): the run rejects with that error, not resolves without the file', async () => {
    service.handle((_request, response) => setTimeout(() => sendJson(response, 201, stored(1)), 30));
    const failure = new Error('no name today');
    let reads = 0;
    // Read once to list the inputs, then again to check it: the second read throws.
    const odd = {
      file: new Blob(['b']),
      get filename(): string {
        reads += 1;
        if (reads > 1) throw failure;
        return 'b.txt';
      },
    };
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const rejection = await client.documents.uploadMany(1, [{ file: new Blob(['a']), filename: 'a.txt' }, odd], { concurrency: 2 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(rejection).toBe(failure);
    // The other file, in flight meanwhile, was sent whole before the run settled.
    expect(service.requests.map((request) => /filename="([^"]+)"/.exec(request.body)?.[1])).toEqual(['a.txt']);
  });

  it("leaves no listener on the caller's signal and stopSignal once it settled", async () => {
    service.handle((_request, response) => sendJson(response, 201, stored(1)));
    const controller = new AbortController();
    const stop = new AbortController();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    // Listened to while the run goes on.
    const during: number[] = [];
    const result = await client.documents.uploadMany(1, [{ file: new Blob(['a']), filename: 'a.txt' }], {
      signal: controller.signal,
      stopSignal: stop.signal,
      onProgress: () => during.push(getEventListeners(stop.signal, 'abort').length),
    });
    expect(result.uploaded).toHaveLength(1);
    expect(during).toContain(1);
    expect([getEventListeners(controller.signal, 'abort'), getEventListeners(stop.signal, 'abort')]).toEqual([[], []]);
  });
});

describe('documents.upload: a stream whose first chunk never comes', () => {
  it('fails with APITimeoutError within the call\'s timeout, and cancels the stream', async () => {
    let cancelled: unknown;
    const stream = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined), cancel: (reason) => void (cancelled = reason) });
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const started = Date.now();
    const call = client.documents.upload(1, stream, { filename: 'x.txt', timeout: 150 });
    await expect(call).rejects.toBeInstanceOf(APITimeoutError);
    await expect(call).rejects.toThrow('POST /api/v1/rooms/1/documents timed out after 150 ms');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(cancelled).toBeInstanceOf(APITimeoutError);
    expect(service.requests).toHaveLength(0);
  });

  it("uses the client's timeout when the call sets none", async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url, timeout: 100 });
    await expect(client.documents.upload(1, silent(), { filename: 'x.txt' })).rejects.toThrow('timed out after 100 ms');
  });

  it('fails as aborted when its signal aborts, already or while waiting', async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const controller = new AbortController();
    const call = client.documents.upload(1, silent(), { filename: 'x.txt', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 30);
    // The caller's cancel, not a connection failure: a retry loop on connection errors does not retry it.
    await expect(call).rejects.toBeInstanceOf(APIUserAbortError);
    await expect(call).rejects.toThrow("[svc-sdk] POST /api/v1/rooms/1/documents: cancelled by the caller's signal (Error: user left)");
    await expect(client.documents.upload(1, silent(), { filename: 'x.txt', signal: AbortSignal.abort() })).rejects.toThrow("cancelled by the caller's signal");
    expect(service.requests).toHaveLength(0);
  });
});
