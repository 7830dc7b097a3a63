import { createReadStream, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, sha256, storeEveryUpload } from './upload-many-support.js';

// How a rerun judges each file against the manifest's last record, and what a stopped run says of
// the files it did not start.

const service = useLoopbackServer();
const recordOf = (fields: Record<string, unknown>) => `${JSON.stringify({ ...fields, room: 1, origin: service.url })}\n`;

/** A client of the loopback service that runs `swap` (renames in the folder) as its first upload is sent. */
function clientThatSwapsOnFirstSend(swap: () => void): Client {
  let swapped = false;
  return new Client({
    apiKey: API_KEY,
    baseUrl: service.url,
    fetch: (input, init) => {
      if (!swapped) swap();
      swapped = true;
      return fetch(input, init);
    },
  });
}

describe('documents.uploadMany: judging a file against its last record', () => {
  it('a file replaced after the listing, before its hash could be compared, is its failed (a ValidationError); nothing of it is sent', async () => {
    const root = makeTree({ '1.txt': 'one', '2.txt': 'two' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(manifest, recordOf({ path: '2.txt', state: 'uploaded', size: 3, sha256: sha256('two'), documentId: 7 }));
    writeFileSync(join(root, 'other'), 'TWO');
    storeEveryUpload(service);
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: service.url,
      fetch: (input, init) => {
        // While 1.txt is sent: 2.txt becomes another file of the same size (another inode).
        renameSync(join(root, 'other'), join(root, 'tree', '2.txt'));
        return fetch(input, init);
      },
    });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    expect(result.uploaded.map((file) => file.path)).toEqual(['1.txt']);
    expect(result.failed.map(({ path, error }) => [path, error instanceof ValidationError, (error as Error).message])).toEqual([
      ['2.txt', true, expect.stringContaining('"2.txt" was replaced by another file since it was listed: nothing was sent')],
    ]);
    expect(service.requests).toHaveLength(1);
    // Judged, not sent: no line written for it (an attempt to send would have written `sending`, then `failed`).
    const states = readFileSync(manifest, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { path: string; state: string });
    expect(states.filter((line) => line.path === '2.txt').map((line) => line.state)).toEqual(['uploaded']);
  });

  it('a sending record (a run killed mid-send: no hash yet) is judged by size and mtime: the same file is unknown, a touched or resized one is sent', async () => {
    const root = makeTree({ 'same.txt': 'same', 'touched.txt': 'touched', 'resized.txt': 'resized', 'untimed.txt': 'untimed' });
    const manifest = join(root, 'm.jsonl');
    const mtimeOf = (name: string) => statSync(join(root, 'tree', name)).mtimeMs;
    writeFileSync(
      manifest,
      recordOf({ path: 'same.txt', state: 'sending', size: 4, mtimeMs: mtimeOf('same.txt') }) +
        recordOf({ path: 'touched.txt', state: 'sending', size: 7, mtimeMs: mtimeOf('touched.txt') - 1000 }) +
        recordOf({ path: 'resized.txt', state: 'sending', size: 6, mtimeMs: mtimeOf('resized.txt') }) +
        recordOf({ path: 'untimed.txt', state: 'sending', size: 7 }),
    );
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    expect([result.unknown.map((file) => file.path), result.uploaded.map((file) => file.path)]).toEqual([['same.txt', 'untimed.txt'], ['resized.txt', 'touched.txt']]);
  });

  it('an input given by the caller (no mtime) with a sending record of the same size is unknown, whatever mtime the record holds', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(
      manifest,
      recordOf({ path: 'a.txt', state: 'sending', size: 5 }) + recordOf({ path: 'b.txt', state: 'sending', size: 9 }) + recordOf({ path: 'c.txt', state: 'sending', size: 5, mtimeMs: 123 }),
    );
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const inputs = [{ file: new Blob(['alpha']), filename: 'a.txt' }, { file: new Blob(['bravo']), filename: 'b.txt' }, { file: new Blob(['charl']), filename: 'c.txt' }];
    const result = await client.documents.uploadMany(1, inputs, { manifest, concurrency: 1 });
    expect([result.unknown.map((file) => file.path), result.uploaded.map((file) => file.path)]).toEqual([['a.txt', 'c.txt'], ['b.txt']]);
  });

  it('an uploaded record without its SHA-256 or its document id cannot prove the file stored: it is sent again', async () => {
    const root = makeTree({ 'a.txt': 'alpha', 'b.txt': 'bravo' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(
      manifest,
      recordOf({ path: 'a.txt', state: 'uploaded', size: 5, documentId: 3 }) + recordOf({ path: 'b.txt', state: 'uploaded', size: 5, sha256: sha256('bravo') }),
    );
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    expect([result.skipped, result.uploaded.map((file) => file.path)]).toEqual([[], ['a.txt', 'b.txt']]);
  });

  it('an unknown record with a SHA-256 (a body read whole, then no answer) is judged by it: the same content stays unknown, other content of the same size is sent', async () => {
    const root = makeTree({ 'same.txt': 'alpha', 'other.txt': 'omega' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(
      manifest,
      recordOf({ path: 'same.txt', state: 'unknown', size: 5, sha256: sha256('alpha') }) + recordOf({ path: 'other.txt', state: 'unknown', size: 5, sha256: sha256('alpha') }),
    );
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    expect([result.unknown.map((file) => file.path), result.uploaded.map((file) => file.path)]).toEqual([['same.txt'], ['other.txt']]);
  });

  it('an uploaded record of another size, or without its SHA-256, sends the file again without reading it to compare first', async () => {
    const root = makeTree({ '1.txt': 'one', 'resized.txt': 'four', 'unhashed.txt': 'five' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(
      manifest,
      recordOf({ path: 'resized.txt', state: 'uploaded', size: 3, sha256: sha256('fou'), documentId: 7 }) + recordOf({ path: 'unhashed.txt', state: 'uploaded', size: 4, documentId: 8 }),
    );
    writeFileSync(join(root, 'other-r'), 'FOUR');
    writeFileSync(join(root, 'other-u'), 'FIVE');
    storeEveryUpload(service);
    // While 1.txt is sent, both become other files: a read of either now fails (replaced since listed).
    const client = clientThatSwapsOnFirstSend(() => {
      renameSync(join(root, 'other-r'), join(root, 'tree', 'resized.txt'));
      renameSync(join(root, 'other-u'), join(root, 'tree', 'unhashed.txt'));
    });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    expect(result.failed.map((file) => file.path)).toEqual(['resized.txt', 'unhashed.txt']);
    // Not judged by a read (that would fail before any line): each went on to be sent, and its open failed.
    const lines = readFileSync(manifest, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { path: string; state: string });
    expect(['resized.txt', 'unhashed.txt'].map((path) => lines.filter((line) => line.path === path).map((line) => line.state))).toEqual([
      ['uploaded', 'sending', 'failed'],
      ['uploaded', 'sending', 'failed'],
    ]);
  });

  it('bytes given with a manifest are hashed to be skipped by the rerun, and sent again once changed', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const inputs = (text: string) => [{ file: new TextEncoder().encode(text), filename: 'a.txt' }];
    const first = await client.documents.uploadMany(1, inputs('alpha'), { manifest });
    const again = await client.documents.uploadMany(1, inputs('alpha'), { manifest });
    const changed = await client.documents.uploadMany(1, inputs('omega'), { manifest });
    expect([first.uploaded.length, again.skipped.map((file) => [file.path, file.documentId, file.sha256]), changed.uploaded.length]).toEqual([1, [['a.txt', 1, sha256('alpha')]], 1]);
    expect(service.requests).toHaveLength(2);
  });
});

describe('documents.uploadMany: a file refused when opened', () => {
  it('is recorded failed with its error (the rerun sends it), and stops the run with stopOnError', async () => {
    const root = makeTree({ '1.txt': 'one', '2.txt': 'two', '3.txt': 'three' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(join(root, 'other'), 'TWO');
    storeEveryUpload(service);
    // While 1.txt is sent: 2.txt becomes another file (refused once opened and checked).
    const client = clientThatSwapsOnFirstSend(() => renameSync(join(root, 'other'), join(root, 'tree', '2.txt')));
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1, stopOnError: true });
    expect([result.uploaded.map((file) => file.path), result.failed.map((file) => file.path), result.notStarted.map((file) => file.path)]).toEqual([['1.txt'], ['2.txt'], ['3.txt']]);
    expect(result.stopped).toMatchObject({ reason: 'stopOnError', message: expect.stringContaining('[svc-sdk] documents.uploadMany: stopped after the first file that failed (stopOnError): ') });
    const lines = readFileSync(manifest, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line['path'] === '2.txt').map(({ state, error, size }) => ({ state, error, size }))).toEqual([
      { state: 'sending', error: undefined, size: 3 },
      { state: 'failed', error: expect.stringContaining('"2.txt" was replaced by another file since it was listed: nothing was sent'), size: 3 },
    ]);
    const rerun = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    expect([rerun.skipped.map((file) => file.path), rerun.uploaded.map((file) => file.path)]).toEqual([['1.txt'], ['2.txt', '3.txt']]);
  });
});

describe('documents.uploadMany: a run stopped before it starts', () => {
  it('calls a file an earlier run may have stored (sending, unknown) unknown, and the others not started', async () => {
    const root = makeTree({ 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c', 'd.txt': 'd' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(
      manifest,
      recordOf({ path: 'a.txt', state: 'sending', size: 1 }) + recordOf({ path: 'b.txt', state: 'unknown', size: 1 }) + recordOf({ path: 'c.txt', state: 'failed', size: 1 }),
    );
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, stopSignal: AbortSignal.abort() });
    expect([result.unknown.map((file) => file.path), result.notStarted.map((file) => file.path), result.stopped?.reason]).toEqual([['a.txt', 'b.txt'], ['c.txt', 'd.txt'], 'stopSignal']);
    expect(service.requests).toHaveLength(0);
  });
});

describe('documents.uploadMany: an fs stream among the inputs', () => {
  it('of a size stat cannot give (start set), read whole, then answered 500, is unknown (the service may have stored it), not failed', async () => {
    const root = makeTree({ 'a.txt': 'streamed from disk' });
    service.handle((_request, response) => sendJson(response, 500, { success: false, error: { code: 'internal', message: 'stored, then failed' } }));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0 });
    const result = await client.documents.uploadMany(1, [{ file: createReadStream(join(root, 'tree', 'a.txt'), { start: 0 }), filename: 'a.txt' }]);
    expect([result.unknown.map((file) => file.path), result.failed.length]).toEqual([['a.txt'], 0]);
    expect(service.requests[0]!.body).toContain('streamed from disk');
  });

  it('a Node Readable read from already is failed with documents.upload\'s refusal, nothing sent (not the rest of it)', async () => {
    storeEveryUpload(service);
    const stream = Readable.from(['one ', 'two'], { objectMode: false });
    stream.read();
    await new Promise((resolve) => setImmediate(resolve));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, [{ file: stream, filename: 'a.txt' }]);
    expect(result.failed.map(({ error }) => (error as ValidationError).issues[0]!.message)).toEqual([expect.stringContaining('file is a stream that was read already')]);
    expect(service.requests).toEqual([]);
  });

  it('is sent as it is, with the Content-Length its own stat gives (not tapped into a stream of unknown length)', async () => {
    const root = makeTree({ 'a.txt': 'streamed from disk' });
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, [{ file: createReadStream(join(root, 'tree', 'a.txt')), filename: 'a.txt' }]);
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    const [request] = service.requests;
    expect([request!.headers['content-length'], request!.headers['transfer-encoding']]).toEqual([String(Buffer.byteLength(request!.body)), undefined]);
    expect(request!.body).toContain('streamed from disk');
  });
});

describe('documents.uploadMany: the result', () => {
  it('lists the files in input order whatever order their answers came in', async () => {
    const root = makeTree({ '1.txt': '1', '2.txt': '2', '3.txt': '3' });
    // The first request to arrive is answered last, the last first; each answer's id is the order it went out in.
    const idOf = new Map<string, number>();
    let id = 0;
    service.handle((request, response, index) => {
      const filename = /filename="([^"]+)"/.exec(request.body)![1]!;
      setTimeout(() => {
        id += 1;
        idOf.set(filename, id);
        response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, data: { id, room_id: 1, original_filename: filename, size: 1, status: 'stored' } }));
      }, 150 - index * 60);
    });
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { concurrency: 3 });
    // Answered in reverse order of arrival, listed in input order, each with its own document.
    expect(idOf.size).toBe(3);
    expect(result.uploaded.map((file) => [file.path, file.document.id])).toEqual(['1.txt', '2.txt', '3.txt'].map((path) => [path, idOf.get(path)]));
  });

  it.each([
    ['null', null],
    ['a plain object (neither bytes nor a stream)', {}],
    ['a number', 42],
    ['a string (not a path: fileFromPath opens one)', 'a.txt'],
  ])('an input whose file is %s is its failed, the ValidationError of documents.upload, not a TypeError', async (_kind, file) => {
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, [{ file: file as never, filename: 'x.txt' }, { file: new Blob(['b']), filename: 'b.txt' }]);
    expect(result.uploaded.map((file) => file.path)).toEqual(['b.txt']);
    expect(result.failed.map(({ path, error }) => [path, error instanceof ValidationError, (error as Error).message])).toEqual([
      ['x.txt', true, '[svc-sdk] documents.upload: file must be a Blob, File, Uint8Array, ArrayBuffer, ReadableStream or Node Readable (fileFromPath opens a path on Node). Nothing was sent.'],
    ]);
  });
});
