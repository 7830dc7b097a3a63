import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { openManifest } from '../../src/uploads/manifest-node.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, sha256 } from './upload-many-support.js';

// The manifest is safe to point anywhere: a regular file only, never someone's file rewritten, one
// run at a time, a torn tail cut in bytes, read line by line, and records that name their room and service.

const service = useLoopbackServer();
const SCOPE = { room: 1, origin: 'http://127.0.0.1:1' };

function storing() {
  let id = 0;
  service.handle((request, response) => {
    id += 1;
    sendJson(response, 201, { success: true, data: { id, room_id: 1, original_filename: /filename="([^"]*)"/.exec(request.body)?.[1], size: 1, status: 'stored' } });
  });
}

const linesOf = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

describe('documents.uploadMany manifest: what it may be pointed at', () => {
  it.each([
    ['a FIFO', (path: string) => spawnSync('mkfifo', [path]).status === 0, 'is a FIFO (named pipe), not a regular file'],
    ['a directory', (path: string) => (mkdirSync(path), true), 'is a directory, not a regular file'],
  ])('refuses %s with a ValidationError naming it, without hanging and without a send', async (_kind, make, words) => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'special');
    expect(make(manifest)).toBe(true);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const call = client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow(`manifest "${manifest}" ${words}`);
    expect(service.requests).toHaveLength(0);
    expect(existsSync(`${manifest}.lock`)).toBe(false);
  });

  it('refuses a device (/dev/null) the same way', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest: '/dev/null' })).rejects.toThrow('manifest "/dev/null" is a device or other special file, not a regular file');
  });

  it.each([
    ['several lines', 'Meeting notes\nBuy milk\n{"path":"x","state":"uploaded"}\n'],
    ['one line without a newline', 'just some notes'],
    ['a JSON line that is not a record', '{"hello":"world"}\n'],
    ['bytes that are not text', '\u0000\u00ff\u00fe binary'],
  ])('refuses a file that is not a manifest (%s) with not a byte written', async (_kind, content) => {
    const root = makeTree({ 'a.txt': 'a' });
    const notes = join(root, 'notes.txt');
    writeFileSync(notes, content);
    const before = readFileSync(notes);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest: notes })).rejects.toThrow(
      `manifest "${notes}" is not a manifest of svc-sdk (its first line is not a record): nothing was written to it`,
    );
    expect(readFileSync(notes).equals(before)).toBe(true);
    expect(service.requests).toHaveLength(0);
    expect(existsSync(`${notes}.lock`)).toBe(false);
  });
});

describe('documents.uploadMany manifest: paths that cannot hold one', () => {
  it('names a path below a file (ENOTDIR) and a directory that does not exist (its lock cannot be made)', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    writeFileSync(join(root, 'plain'), 'x');
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest: join(root, 'plain', 'm.jsonl') })).rejects.toThrow(
      `manifest "${join(root, 'plain', 'm.jsonl')}" cannot be read (ENOTDIR): pass the path of a regular file you can write`,
    );
    const missing = client.documents.uploadMany(1, join(root, 'tree'), { manifest: join(root, 'missing', 'm.jsonl') });
    await expect(missing).rejects.toThrow(
      `[svc-sdk] documents.uploadMany: manifest: cannot create the lock "${join(root, 'missing', 'm.jsonl')}.lock" beside the manifest (ENOENT): pass a manifest in a directory you can write. Nothing was sent.`,
    );
    await expect(missing).rejects.toMatchObject({ issues: [{ path: ['manifest'], message: expect.stringContaining('cannot create the lock') }] });
    expect(service.requests).toHaveLength(0);
  });

  it('refuses a line longer than any record without holding it whole, first or later', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const record = `${JSON.stringify({ path: 'a.txt', state: 'failed', ...roomOf(SCOPE) })}\n`;
    const long = `{"path":"${'p'.repeat(200 * 1024)}","state":"failed"}\n`;
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    writeFileSync(join(root, 'first.jsonl'), long);
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest: join(root, 'first.jsonl') })).rejects.toThrow('is not a manifest of svc-sdk (its first line is not a record)');
    writeFileSync(join(root, 'later.jsonl'), record + long + record);
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest: join(root, 'later.jsonl') })).rejects.toThrow('has a line 2 that is not a record of svc-sdk');
    expect(readFileSync(join(root, 'later.jsonl'), 'utf8')).toBe(record + long + record);
  });

  it('a lock file that cannot be read (torn) is a run in progress of an unknown process: refused, naming the lock', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(`${manifest}.lock`, '{"pid":');
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest })).rejects.toThrow(
      `[svc-sdk] manifest ${manifest} is in use by process unknown (its lock file cannot be read): wait for that run to end, or remove ${manifest}.lock if no run is going`,
    );
  });
});

describe('documents.uploadMany manifest: a torn tail and compaction', () => {
  it('cuts a torn last line in bytes (inside a multi-byte character), keeping every whole record before it', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const whole = `${JSON.stringify({ path: 'é.txt', state: 'uploaded', size: 1, sha256: 'a'.repeat(64), documentId: 3, ...roomOf(SCOPE) })}\n`;
    // The torn line ends in the middle of "é" (two bytes in UTF-8): text offsets and byte offsets differ.
    const torn = Buffer.from(JSON.stringify({ path: 'ééé.txt', state: 'sending' })).subarray(0, 12);
    writeFileSync(manifest, Buffer.concat([Buffer.from(whole), torn]));
    const opened = await openManifest(manifest, SCOPE);
    expect([...opened.previous.keys()]).toEqual(['é.txt']);
    await opened.close();
    expect(readFileSync(manifest, 'utf8')).toBe(whole);
  });

  it('keeps a last whole record that only lacks its newline, and appends after it on a line of its own', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const record = JSON.stringify({ path: 'a.txt', state: 'uploaded', size: 1, sha256: 'b'.repeat(64), documentId: 9, ...roomOf(SCOPE) });
    writeFileSync(manifest, record);
    const opened = await openManifest(manifest, SCOPE);
    expect(opened.previous.get('a.txt')).toMatchObject({ state: 'uploaded', documentId: 9 });
    await opened.append({ path: 'b.txt', state: 'sending', size: 1, mtimeMs: undefined });
    await opened.close();
    expect(linesOf(manifest).map((line) => line['path'])).toEqual(['a.txt', 'b.txt']);
  });

  it('a file that holds only the start of a first record (a crash at the first write) is taken as torn, not refused', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(manifest, '{"path":"a.t');
    const opened = await openManifest(manifest, SCOPE);
    expect(opened.previous.size).toBe(0);
    await opened.close();
    expect(readFileSync(manifest, 'utf8')).toBe('');
  });

  it('compacts on open to the last record of each path, and keeps the records of other rooms', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const other = { room: 2, origin: SCOPE.origin };
    const lines = [
      { path: 'a.txt', state: 'sending', ...roomOf(SCOPE) },
      { path: 'a.txt', state: 'uploaded', documentId: 1, sha256: 'c'.repeat(64), ...roomOf(SCOPE) },
      { path: 'a.txt', state: 'sending', ...roomOf(other) },
      { path: 'b.txt', state: 'sending', ...roomOf(SCOPE) },
      { path: 'b.txt', state: 'failed', ...roomOf(SCOPE) },
    ];
    writeFileSync(manifest, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const opened = await openManifest(manifest, SCOPE);
    await opened.close();
    expect(linesOf(manifest)).toEqual([
      expect.objectContaining({ path: 'a.txt', state: 'uploaded', room: 1 }),
      expect.objectContaining({ path: 'a.txt', state: 'sending', room: 2 }),
      expect.objectContaining({ path: 'b.txt', state: 'failed', room: 1 }),
    ]);
  });

  it.skipIf(process.env['SVC_MUTATION_RUN'] === '1')('reads a manifest of 1,000,000 lines line by line: no ERR_STRING_TOO_LONG, memory bounded, compacted', async () => {
    const root = makeTree({});
    const manifest = join(root, 'big.jsonl');
    // 1,000,000 lines over 1,000 paths (a folder rerun 500 times), with long error texts: ~330 MB (skipped by mutation runs, once per mutant).
    const out = createWriteStream(manifest);
    const error = 'x'.repeat(200);
    for (let index = 0; index < 1_000_000; index += 1) {
      const line = `${JSON.stringify({ path: `f${index % 1000}.txt`, state: index % 2 ? 'failed' : 'sending', size: 1, error, ...roomOf(SCOPE) })}\n`;
      if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    await new Promise((resolve) => out.end(resolve));
    const before = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      const opened = await openManifest(manifest, SCOPE);
      expect(opened.previous.size).toBe(1000);
      expect(opened.previous.get('f7.txt')).toMatchObject({ state: 'failed' });
      await opened.close();
    } finally {
      clearInterval(sampler);
    }
    // Read whole as a string it cost ~750 MB and, at 600 MB, failed outright.
    expect(peak - before.rss).toBeLessThan(150 * 1024 * 1024);
    expect(linesOf(manifest)).toHaveLength(1000);
  }, 120_000);
});

describe('documents.uploadMany manifest: one run at a time', () => {
  it('a second run on the same manifest is refused while the first runs, naming its process; the first finishes', async () => {
    const root = makeTree({ 'a.txt': 'a', 'b.txt': 'b' });
    const manifest = join(root, 'm.jsonl');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    service.handle(async (request, response) => {
      await held;
      sendJson(response, 201, { success: true, data: { id: 1, room_id: 1, original_filename: 'a.txt', size: 1, status: 'stored' } });
    });
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const first = client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    await waitFor(() => service.requests.length === 1 || existsSync(`${manifest}.lock`));
    const second = client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    await expect(second).rejects.toBeInstanceOf(ValidationError);
    await expect(second).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process ${process.pid} on ${hostname()}`);
    await expect(second).rejects.toMatchObject({ issues: [{ path: ['manifest'], message: expect.stringMatching(/^in use by process \d+ on .+: wait for that run to end, or remove .+\.lock if no run is going$/) }] });
    release();
    const result = await first;
    expect(result.uploaded).toHaveLength(2);
    expect(existsSync(`${manifest}.lock`)).toBe(false);
  });

  it('takes over the lock of a process of this host that is gone (killed), and refuses one that runs', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'm.jsonl');
    storing();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    // A live process (sleeping) holds it: refused.
    const sleeper = spawn('sleep', ['30']);
    try {
      writeFileSync(`${manifest}.lock`, JSON.stringify({ pid: sleeper.pid, host: hostname() }));
      await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest })).rejects.toThrow(`is in use by process ${sleeper.pid} on ${hostname()}`);
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
    // The same process, now dead: its lock is stale, taken over.
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(existsSync(`${manifest}.lock`)).toBe(false);
  });

  it('refuses a lock of another host (its process cannot be checked from here), even with a pid gone from this host', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'm.jsonl');
    const gone = spawnSync('true').pid;
    writeFileSync(`${manifest}.lock`, JSON.stringify({ pid: gone, host: 'elsewhere.example' }));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest })).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process ${gone} on elsewhere.example`);
    expect(service.requests).toHaveLength(0);
  });

  it('takes over a lock left empty for over a second (killed between creating and writing it), not a fresh empty one', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'm.jsonl');
    storing();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    writeFileSync(`${manifest}.lock`, '');
    // Fresh: a run that is writing its pid; waited for up to a second, then taken over as it stays empty.
    const started = Date.now();
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(existsSync(`${manifest}.lock`)).toBe(false);
  });

  it.each([
    ['a pid that is not a number', { pid: 'abc', host: hostname() }],
    ['no host', { pid: 1 }],
  ])('a lock with %s is an unknown process: refused, not taken over', async (_kind, holder) => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(`${manifest}.lock`, JSON.stringify(holder));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest })).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process unknown (its lock file cannot be read)`);
  });
});

describe('documents.uploadMany manifest records: what was sent, to which room of which service', () => {
  it('a record names its room and origin and holds the size and SHA-256 of the bytes sent', async () => {
    const root = makeTree({ 'a.txt': 'alpha' });
    const manifest = join(root, 'm.jsonl');
    storing();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await client.documents.uploadMany(4, join(root, 'tree'), { manifest });
    expect(linesOf(manifest).at(-1)).toMatchObject({ path: 'a.txt', state: 'uploaded', size: 5, sha256: sha256('alpha'), room: 4, origin: service.url });
  });

  /** A client of a port that was just free: every connection is refused, after the encoder has read the first chunk. */
  async function refusingClient(): Promise<Client> {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    return new Client({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}` });
  }

  it('a file of up to 1 MiB (1 MiB included) is read whole before it is sent: refused a connection, its line holds its size and SHA-256', async () => {
    const small = Buffer.alloc(1024 * 1024, 'a file read whole ');
    const root = makeTree({ 'small.bin': small });
    const manifest = join(root, 'm.jsonl');
    const result = await (await refusingClient()).documents.uploadMany(4, join(root, 'tree'), { manifest });
    expect(result.failed.map((file) => file.path)).toEqual(['small.bin']);
    expect(linesOf(manifest).at(-1)).toMatchObject({ path: 'small.bin', state: 'failed', size: small.length, sha256: sha256(small) });
  });

  it('a streamed file (over 1 MiB) refused a connection records its listed size, not the bytes the encoder had read of it, and no hash', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 'a file too big to be read whole ');
    const root = makeTree({ 'big.bin': big });
    const manifest = join(root, 'm.jsonl');
    const result = await (await refusingClient()).documents.uploadMany(4, join(root, 'tree'), { manifest });
    expect(result.failed.map((file) => file.path)).toEqual(['big.bin']);
    const record = linesOf(manifest).at(-1);
    expect(record).toMatchObject({ path: 'big.bin', state: 'failed', size: big.length });
    expect(record).not.toHaveProperty('sha256');
  });

  it("another room's manifest is not used: every file is sent to this room, and a note says why", async () => {
    const root = makeTree({ 'a.txt': 'alpha', 'b.txt': 'bravo' });
    const manifest = join(root, 'm.jsonl');
    storing();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const roomOne = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(roomOne.notes).toEqual([]);
    const roomTwo = await client.documents.uploadMany(2, join(root, 'tree'), { manifest });
    expect(roomTwo.uploaded.map((file) => file.path)).toEqual(['a.txt', 'b.txt']);
    expect(roomTwo.skipped).toEqual([]);
    expect(roomTwo.notes).toEqual([expect.stringContaining('the manifest has records of 2 file(s) for another room or service only; they were not used')]);
    // Room 1 again: its own records still count.
    const again = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(again.skipped.map((file) => file.path)).toEqual(['a.txt', 'b.txt']);
    expect(service.requests).toHaveLength(4);
  });

  it('records of svc-sdk 0.3 (no room, no origin) are not used, with a note', async () => {
    const root = makeTree({ 'a.txt': 'alpha' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(manifest, `${JSON.stringify({ path: 'a.txt', state: 'uploaded', size: 5, sha256: sha256('alpha'), documentId: 1 })}\n`);
    storing();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(result.notes).toEqual([expect.stringContaining('records of 1 file(s) that name no room or service (svc-sdk 0.3); they were not used')]);
  });
});

function roomOf(scope: { room: number; origin: string }) {
  return { room: scope.room, origin: scope.origin };
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries += 1) {
    if (tries > 500) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
