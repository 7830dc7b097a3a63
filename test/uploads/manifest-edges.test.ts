import { spawnSync } from 'node:child_process';
import { constants, existsSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { hostname } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ValidationError } from '../../src/index.node.js';
import { openManifest } from '../../src/uploads/manifest-node.js';
import { makeTree, openFlags } from './upload-many-support.js';

// The manifest's reader at its limits: a socket where the manifest should be, and a record exactly
// as long as the longest line taken (64 KiB), a byte more, and split across reads.

const SCOPE = { room: 1, origin: 'http://127.0.0.1:1' };
const LIMIT = 64 * 1024;

/** A record line (without its newline) of exactly `bytes` bytes, for `path`. */
function recordOf(path: string, bytes: number): string {
  const base = JSON.stringify({ path, state: 'failed', size: 1, error: '', ...SCOPE });
  return JSON.stringify({ path, state: 'failed', size: 1, error: 'e'.repeat(bytes - base.length), ...SCOPE });
}

describe('openManifest at its limits', () => {
  it.runIf(process.platform !== 'win32')('refuses a socket, naming it, before opening it', async () => {
    const root = makeTree({});
    const path = join(root, 'm.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const call = openManifest(path, SCOPE);
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow(`manifest "${path}" is a socket, not a regular file: pass the path of a manifest file (created when missing)`);
    await expect(call).rejects.toMatchObject({ issues: [{ path: ['manifest'] }] });
  });

  it('leaves a manifest with nothing to compact as it is: not rewritten (the same file, the same bytes)', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const lines = `${recordOf('a.txt', 300)}\n${recordOf('b.txt', 300)}\n`;
    writeFileSync(manifest, lines);
    const before = statSync(manifest);
    const opened = await openManifest(manifest, SCOPE);
    await opened.close();
    // A compaction renames a new copy over it: another inode.
    expect([statSync(manifest).ino, readFileSync(manifest, 'utf8')]).toEqual([before.ino, lines]);
  });

  it.runIf(process.platform === 'linux')('is open without blocking (O_NONBLOCK: a FIFO swapped in cannot hang the open) and appending', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const opened = await openManifest(manifest, SCOPE);
    const flags = openFlags(manifest);
    await opened.close();
    expect([flags! & constants.O_NONBLOCK, flags! & constants.O_APPEND]).toEqual([constants.O_NONBLOCK, constants.O_APPEND]);
  });

  it('takes a first record of exactly 64 KiB (its newline in the next read), and refuses one a byte longer, untouched', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const longest = recordOf('a.txt', LIMIT);
    expect(Buffer.byteLength(longest)).toBe(LIMIT);
    writeFileSync(manifest, `${longest}\n${recordOf('b.txt', 200)}\n`);
    const opened = await openManifest(manifest, SCOPE);
    expect([...opened.previous.keys()]).toEqual(['a.txt', 'b.txt']);
    await opened.close();
    const tooLong = `${recordOf('a.txt', LIMIT + 1)}\n`;
    writeFileSync(manifest, tooLong);
    await expect(openManifest(manifest, SCOPE)).rejects.toThrow('is not a manifest of svc-sdk (its first line is not a record)');
    expect(readFileSync(manifest, 'utf8')).toBe(tooLong);
  });

  it('takes a later record of exactly 64 KiB split across two reads', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const first = recordOf('a.txt', 1000);
    writeFileSync(manifest, `${first}\n${recordOf('b.txt', LIMIT)}\n${recordOf('c.txt', 300)}\n`);
    const opened = await openManifest(manifest, SCOPE);
    expect([...opened.previous.keys()]).toEqual(['a.txt', 'b.txt', 'c.txt']);
    await opened.close();
  });

  it('compacts a manifest whose last records alone pass 64 KiB (written in several batches) to exactly those records', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const paths = Array.from({ length: 1000 }, (_, index) => `dir/file-${index}.txt`);
    // Each path twice: the first record is superseded, so opening compacts.
    writeFileSync(manifest, [...paths, ...paths].map((path, index) => `${recordOf(path, 200 + (index >= paths.length ? 1 : 0))}\n`).join(''));
    const opened = await openManifest(manifest, SCOPE);
    await opened.close();
    const expected = paths.map((path) => `${recordOf(path, 201)}\n`).join('');
    expect(Buffer.byteLength(expected)).toBeGreaterThan(2 * LIMIT);
    expect(readFileSync(manifest, 'utf8')).toBe(expected);
    const reopened = await openManifest(manifest, SCOPE);
    expect(reopened.previous.size).toBe(paths.length);
    await reopened.close();
  });

  it('drops a torn last line whose read ends where an earlier read had a newline (the stale bytes past a read are not the file)', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    // 700 lines of 100 bytes, then 35 bytes of a line cut short: the second read (4,499 bytes) ends
    // where the first read's byte 4,499 is a newline, still in the buffer.
    const lines = Array.from({ length: 700 }, (_, index) => `${recordOf(`f-${String(index).padStart(3, '0')}.txt`, 99)}\n`).join('');
    const torn = recordOf('torn.txt', 99).slice(0, 35);
    writeFileSync(manifest, lines + torn);
    expect(Buffer.byteLength(lines + torn) - LIMIT).toBe(4499);
    expect(lines[4499]).toBe('\n');
    const opened = await openManifest(manifest, SCOPE);
    expect(opened.previous.size).toBe(700);
    await opened.close();
    expect(readFileSync(manifest, 'utf8')).toBe(lines);
  });

  it.each([
    ['its first line', '', 'is not a manifest of svc-sdk (its first line is not a record)'],
    ['a later line', `${recordOf('a.txt', 300)}\n`, 'has a line 2 that is not a record of svc-sdk'],
  ])('refuses %s past 64 KiB with no newline, that starts as a record, untouched (not dropped as a line cut short)', async (_which, before, message) => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const content = `${before}{"path":"${'a'.repeat(3 * LIMIT)}`;
    writeFileSync(manifest, content);
    await expect(openManifest(manifest, SCOPE)).rejects.toThrow(`manifest "${manifest}" ${message}`);
    expect(readFileSync(manifest, 'utf8')).toBe(content);
  });

  it.runIf(process.platform === 'linux')('refuses a FIFO swapped in for the manifest after its check, once opened (never reading it)', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(manifest, '');
    const lock = `${manifest}.lock`;
    // The lock is a FIFO: the run reads its holder from it, and stays there until this test writes one.
    expect(spawnSync('mkfifo', [lock]).status).toBe(0);
    const opening = openManifest(manifest, SCOPE);
    opening.catch(() => undefined);
    // Opening the FIFO for writing returns once the run has it open for reading: past the manifest's check.
    const writer = await open(lock, 'w');
    rmSync(manifest);
    expect(spawnSync('mkfifo', [manifest]).status).toBe(0);
    // A holder gone from this host: the lock is taken over, then the manifest opened.
    await writer.write(JSON.stringify({ pid: spawnSync('true').pid, host: hostname() }));
    await writer.close();
    await expect(opening).rejects.toThrow(`manifest "${manifest}" is not a regular file: pass the path of a manifest file (created when missing)`);
    await expect(opening).rejects.toBeInstanceOf(ValidationError);
    expect(existsSync(lock)).toBe(false);
  });

  it.runIf(process.platform !== 'win32')('refuses a manifest it cannot open (a link into a missing folder), naming the code, and releases its lock', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    symlinkSync(join(root, 'missing', 'm.jsonl'), manifest);
    const call = openManifest(manifest, SCOPE);
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow(`manifest "${manifest}" is a symbolic link: pass the path of the manifest file itself`);
    expect(existsSync(`${manifest}.lock`)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('closes the directory it syncs after a compaction', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(manifest, `${recordOf('a.txt', 200)}\n${recordOf('a.txt', 201)}\n`);
    const opened = await openManifest(manifest, SCOPE);
    await opened.close();
    expect(readFileSync(manifest, 'utf8')).toBe(`${recordOf('a.txt', 201)}\n`);
    expect(openFlags(realpathSync(root))).toBeUndefined();
  });
});
