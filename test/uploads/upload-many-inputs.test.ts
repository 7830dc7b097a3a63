import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client, ValidationError, type UploadManyProgress } from '../../src/index.node.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, storeEveryUpload } from './upload-many-support.js';

// What uploadMany makes of its inputs, at the wire and in its result: the order of a folder's
// files, the progress totals, inputs that are not files, streams read to their end.

const service = useLoopbackServer();

const storing = () => storeEveryUpload(service);

const client = (options: { maxRetries?: number } = {}) => new Client({ apiKey: API_KEY, baseUrl: service.url, ...options });

describe('documents.uploadMany inputs', () => {
  it('takes a folder in code-unit order of the relative path, whatever order the directory lists its entries in', async () => {
    // Names whose directory order (ext4's hash order, tmpfs's newest first) is not their code-unit order;
    // '-' (0x2d) sorts before '/' (0x2f): "a-b.txt" comes before the files of "a/".
    const names = ['Zeta.txt', 'a-b.txt', 'a/b.txt', 'a/a.txt', 'b.txt', '_.txt', 'A.txt', 'é.txt', 'z.txt', '0.txt', 'a.txt', 'ab/c.txt', 'M.txt', '~.txt'];
    for (let index = 0; index < 20; index++) names.push(`n${(index * 7919) % 97}.txt`);
    const root = makeTree(Object.fromEntries(names.map((name) => [name, name])));
    storing();
    const result = await client().documents.uploadMany(1, join(root, 'tree'), { concurrency: 1 });
    const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(result.uploaded.map((file) => file.path)).toEqual(sorted);
    expect(service.requests.map((request) => /filename="([^"]*)"/.exec(request.body)?.[1])).toEqual(sorted.map((name) => name.slice(name.lastIndexOf('/') + 1)));
  });

  it.runIf(process.platform === 'linux')('a folder with a name that is not UTF-8: its issue names the input, and the progress total counts the files that can be sent', async () => {
    const root = makeTree({ 'a.txt': 'aaa', 'b.txt': 'bbbb' });
    writeFileSync(Buffer.concat([Buffer.from(join(root, 'tree')), Buffer.from('/c'), Buffer.from([0xe9])]), 'latin-1 named');
    storing();
    const seen: UploadManyProgress[] = [];
    const result = await client().documents.uploadMany(1, join(root, 'tree'), { onProgress: (progress) => seen.push(progress) });
    expect((result.failed[0]!.error as ValidationError).issues.map((issue) => issue.path)).toEqual([['inputs', 'c\\xe9']]);
    expect(seen.at(-1)).toMatchObject({ filesTotal: 3, filesDone: 3, bytesTotal: 7, bytesDone: 7 });
  });

  it('the progress total of an array of inputs is the sum of their sizes, or unknown when one is a stream', async () => {
    storing();
    const known: UploadManyProgress[] = [];
    await client().documents.uploadMany(1, [{ file: new Blob(['abc']), filename: 'a' }, { file: new Uint8Array(4), filename: 'b' }], { onProgress: (progress) => known.push(progress) });
    expect(known.map((progress) => progress.bytesTotal)).toEqual(known.map(() => 7));
    const unknown: UploadManyProgress[] = [];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(2));
        controller.close();
      },
    });
    await client().documents.uploadMany(1, [{ file: new Blob(['abc']), filename: 'a' }, { file: stream, filename: 's' }], { onProgress: (progress) => unknown.push(progress) });
    expect(unknown.map((progress) => progress.bytesTotal)).toEqual(unknown.map(() => undefined));
  });

  it('an input that is not an object is that input\'s failed (a ValidationError naming it); the others are sent', async () => {
    storing();
    const inputs = [null, { file: new Blob(['x']), filename: 'x.txt' }, undefined] as unknown as Array<{ file: Blob; filename: string }>;
    const result = await client().documents.uploadMany(1, inputs);
    expect(result.uploaded.map((file) => file.path)).toEqual(['x.txt']);
    expect(result.failed.map(({ error }) => [error instanceof ValidationError, (error as ValidationError).issues[0]!.path])).toEqual([
      [true, ['inputs', 0, 'filename']],
      [true, ['inputs', 2, 'filename']],
    ]);
  });

  it.each([
    ['a generator', {}],
    // Not an fs.ReadStream, which has both (and is sent untapped, its size from stat).
    ['a stream with a bytesRead count but no path', { bytesRead: 0 }],
    ['a stream with a path but no bytesRead count', { path: 'c.txt' }],
  ])('%s of unknown size read to its end, then answered 500, is unknown (the service may have stored it), not failed', async (_kind, extra) => {
    service.handle((_request, response) => sendJson(response, 500, { success: false, error: { code: 'internal', message: 'stored, then failed' } }));
    async function* chunks() {
      yield new TextEncoder().encode('one ');
      yield 'two';
    }
    const result = await client({ maxRetries: 0 }).documents.uploadMany(1, [{ file: Object.assign(chunks(), extra), filename: 'c.txt' }]);
    expect([result.unknown.map((file) => file.path), result.failed.length]).toEqual([['c.txt'], 0]);
    expect(service.requests[0]!.body).toContain('one two');
  });

  it('an iterator with no return() (an array\'s values()), stopped before its end: the run resolves, nothing read on', async () => {
    storing();
    const inputs = [{ file: new Blob(['a']), filename: 'a' }, { file: new Blob(['b']), filename: 'b' }].values();
    expect((inputs as { return?: unknown }).return).toBeUndefined();
    const result = await client().documents.uploadMany(1, inputs, { stopSignal: AbortSignal.abort() });
    expect([result.uploaded.length, result.stopped?.reason, service.requests.length]).toEqual([0, 'stopSignal', 0]);
  });

  it("a Blob keeps its own type as the part's Content-Type with a manifest (hashed as it is sent) as without one", async () => {
    const root = makeTree({});
    storing();
    const inputs = () => [{ file: new Blob(['%PDF-1.7'], { type: 'application/pdf' }), filename: 'scan' }];
    await client().documents.uploadMany(1, inputs());
    await client().documents.uploadMany(1, inputs(), { manifest: join(root, 'm.jsonl') });
    expect(service.requests.map((request) => /Content-Type: (.*)\r\n/.exec(request.body)?.[1])).toEqual(['application/pdf', 'application/pdf']);
  });

  it('an iterator that said it is done is asked no more, by any worker, and not returned (it ended by itself)', async () => {
    storing();
    const calls: string[] = [];
    const items = [{ file: new Blob(['a']), filename: 'a' }, { file: new Blob(['b']), filename: 'b' }];
    let index = 0;
    // Hand-written, as a caller may: it answers whatever it is asked, even past its end.
    const iterator = {
      next: () => {
        calls.push('next');
        return index < items.length ? { done: false as const, value: items[index++]! } : { done: true as const, value: undefined };
      },
      return: () => {
        calls.push('return');
        return { done: true as const, value: undefined };
      },
    };
    const result = await client().documents.uploadMany(1, { [Symbol.iterator]: () => iterator }, { concurrency: 3 });
    expect(result.uploaded.map((file) => file.path).sort()).toEqual(['a', 'b']);
    expect(calls).toEqual(['next', 'next', 'next']);
  });

  it("a caller's ReadableStream is read to its end and released (no longer locked)", async () => {
    storing();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed'));
        controller.close();
      },
    });
    const result = await client().documents.uploadMany(1, [{ file: stream, filename: 's.txt' }]);
    expect(result.uploaded.map((file) => file.path)).toEqual(['s.txt']);
    expect(stream.locked).toBe(false);
    // Without a manifest, nothing needs its hash: none is taken.
    expect(result.uploaded[0]!.sha256).toBeUndefined();
  });
});

describe('documents.uploadMany manifest lock', () => {
  it('an empty lock that its maker fills in while it is waited for is that run\'s: refused, not taken over', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(`${manifest}.lock`, '');
    // The other run writes its pid (this live process) while this one waits out the empty lock's second.
    const filled = setTimeout(() => writeFileSync(`${manifest}.lock`, JSON.stringify({ pid: process.pid, host: hostname() })), 300);
    try {
      await expect(client().documents.uploadMany(1, join(root, 'tree'), { manifest })).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process`);
    } finally {
      clearTimeout(filled);
    }
    expect(service.requests).toHaveLength(0);
  });
});
