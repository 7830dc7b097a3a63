import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer as createNetServer } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, storeEveryUpload, sha256 } from './upload-many-support.js';

// The folder is read safely: a hostile folder (links swapped in after the listing, files resized,
// names that are not UTF-8) never makes uploadMany send a file from outside it, nor stop the others.

const service = useLoopbackServer();

const storing = () => storeEveryUpload(service);

/** A client whose every request first runs `beforeSend` (a change to the folder after the listing). */
function clientChanging(beforeSend: (index: number) => void) {
  let index = 0;
  return new Client({
    apiKey: API_KEY,
    baseUrl: service.url,
    fetch: (input, init) => {
      beforeSend(index++);
      return fetch(input, init);
    },
  });
}

describe('documents.uploadMany reads the folder safely', () => {
  it.each([
    ['small (read whole)', 'a secret key\n'],
    ['large (streamed)', 'k'.repeat(2 * 1024 * 1024)],
  ])('a file replaced by a symbolic link after the listing is refused, never followed: the outside file is not sent (%s)', async (_kind, secret) => {
    const root = makeTree({ '1.txt': 'one', '2.txt': 'x'.repeat(secret.length) });
    const outside = join(root, 'id_ed25519');
    writeFileSync(outside, secret);
    storing();
    const client = clientChanging((index) => {
      if (index !== 0) return;
      // While the first file is sent: 2.txt becomes a link to a file outside the folder, of the same size.
      rmSync(join(root, 'tree', '2.txt'));
      symlinkSync(outside, join(root, 'tree', '2.txt'));
    });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { concurrency: 1, manifest: join(root, 'm.jsonl') });
    expect(result.uploaded.map((file) => file.path)).toEqual(['1.txt']);
    expect(result.failed.map(({ path, error }) => [path, error instanceof ValidationError, (error as Error).message])).toEqual([
      ['2.txt', true, expect.stringContaining('"2.txt" was replaced by a symbolic link since it was listed (links are never followed): nothing was sent')],
    ]);
    // The issue names the input (the file's path), as every other refusal of an input does.
    const error = result.failed[0]!.error as ValidationError;
    expect([error.message.startsWith('[svc-sdk] documents.uploadMany: '), error.issues.map((issue) => issue.path)]).toEqual([true, [['inputs', '2.txt']]]);
    expect(service.requests).toHaveLength(1);
    expect(service.requests.some((request) => request.body.includes(secret.slice(0, 12)))).toBe(false);
  });

  it('a file replaced by another file (same size, another inode) after the listing is refused', async () => {
    const root = makeTree({ '1.txt': 'one', '2.txt': 'two' });
    writeFileSync(join(root, 'other'), 'TWO');
    storing();
    const client = clientChanging((index) => {
      if (index === 0) renameSync(join(root, 'other'), join(root, 'tree', '2.txt'));
    });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { concurrency: 1 });
    expect(result.failed.map(({ path, error }) => [path, (error as Error).message])).toEqual([['2.txt', expect.stringContaining('"2.txt" was replaced by another file since it was listed')]]);
    expect(service.requests).toHaveLength(1);
  });

  it('a file replaced by a FIFO after the listing is refused at once (no wait for a writer)', async () => {
    const root = makeTree({ '1.txt': 'one', '2.txt': 'two' });
    storing();
    const client = clientChanging((index) => {
      if (index !== 0) return;
      rmSync(join(root, 'tree', '2.txt'));
      expect(spawnSync('mkfifo', [join(root, 'tree', '2.txt')]).status).toBe(0);
    });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { concurrency: 1 });
    expect(result.failed.map(({ path, error }) => [path, (error as Error).message])).toEqual([['2.txt', expect.stringContaining('"2.txt" is no longer a regular file: nothing was sent')]]);
  });

  it('a large file that grows while it is sent is sent as listed, and recorded with the size and SHA-256 of the bytes sent', async () => {
    const size = 2 * 1024 * 1024;
    const root = makeTree({ 'big.bin': new Uint8Array(size).fill(1) });
    const manifest = join(root, 'm.jsonl');
    storing();
    const client = clientChanging(() => writeFileSync(join(root, 'tree', 'big.bin'), new Uint8Array(100).fill(2), { flag: 'a' }));
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(result.uploaded.map((file) => [file.path, file.sha256])).toEqual([['big.bin', sha256(new Uint8Array(size).fill(1))]]);
    const last = readFileSync(manifest, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { state: string; size: number; sha256: string }).at(-1)!;
    expect(last).toMatchObject({ state: 'uploaded', size, sha256: sha256(new Uint8Array(size).fill(1)) });
    // The rerun sees a file of another size: a new version, sent (not skipped as if the grown file were stored).
    const rerun = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(rerun.uploaded.map((file) => [file.path, file.size])).toEqual([['big.bin', size + 100]]);
  });

  it.runIf(process.platform === 'linux')('a name that is not UTF-8 is that file\'s failed (a ValidationError naming it); the other files are sent', async () => {
    const root = makeTree({ 'a.txt': 'a', 'sub/c.txt': 'c' });
    const tree = Buffer.from(join(root, 'tree'));
    // "caf\xe9.txt": Latin-1, legal on Linux, not UTF-8.
    writeFileSync(Buffer.concat([tree, Buffer.from('/caf'), Buffer.from([0xe9]), Buffer.from('.txt')]), 'latin-1 named');
    mkdirSync(Buffer.concat([tree, Buffer.from('/d'), Buffer.from([0xff])]));
    storing();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'));
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt', 'sub/c.txt']);
    expect(result.failed.map(({ path, error }) => [path, error instanceof ValidationError, (error as Error).message])).toEqual([
      ['caf\\xe9.txt', true, expect.stringContaining('the file name "caf\\xe9.txt" is not UTF-8, so it cannot be sent as a document\'s name: rename the file and run again')],
      ['d\\xff', true, expect.stringContaining('the file name "d\\xff" is not UTF-8')],
    ]);
    expect(service.requests).toHaveLength(2);
  });
});

/** Descriptors of this process open on a path below `root` (the folder, the manifest and its lock; Linux: /proc/self/fd), after giving pending closes up to a second. */
async function openBelow(root: string): Promise<string[]> {
  const list = () =>
    readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        const target = readlinkSync(`/proc/self/fd/${fd}`);
        return target.startsWith(`${root}/`) ? [target] : [];
      } catch {
        return []; // closed meanwhile (the listing's own descriptor among them)
      }
    });
  for (let waited = 0; waited < 1000 && list().length > 0; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  return list();
}

describe('documents.uploadMany lists only what it can send', () => {
  it('a path that is a file, not a directory, is refused whole (ENOTDIR) before anything is sent', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    storing();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const path = join(root, 'tree', 'a.txt');
    await expect(client.documents.uploadMany(1, path)).rejects.toThrow(
      `[svc-sdk] documents.uploadMany: inputs: cannot read the directory "${path}" (ENOTDIR): pass the path of a readable directory. Nothing was sent.`,
    );
    expect(service.requests).toHaveLength(0);
  });

  it.runIf(process.platform !== 'win32')('a socket in the folder is neither sent nor listed as failed', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const socket = createNetServer();
    await new Promise<void>((resolve) => socket.listen(join(root, 'tree', 's.sock'), resolve));
    onTestFinished(() => new Promise<void>((resolve) => socket.close(() => resolve())));
    storing();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'));
    expect([result.uploaded.map((file) => file.path), result.failed.length]).toEqual([['a.txt'], 0]);
  });

  it.runIf(process.platform === 'linux')('a name that is not UTF-8 is shown with its ASCII as it is and every other byte as \\xNN', async () => {
    const root = makeTree({});
    writeFileSync(Buffer.concat([Buffer.from(join(root, 'tree')), Buffer.from('/a'), Buffer.from([0x80, 0x7f]), Buffer.from('z')]), 'x');
    storing();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'));
    expect(result.failed.map((file) => file.path)).toEqual(['a\\x80\x7fz']);
  });
});

describe.runIf(process.platform === 'linux')('documents.uploadMany closes what it opens', () => {
  it('every file descriptor it opened is closed: files read whole, streamed, refused after the listing, and hashed by a rerun', async () => {
    const big = new Uint8Array(2 * 1024 * 1024).fill(3);
    const root = makeTree({ 'big.bin': big, 'small.txt': 'small', 'swapped.txt': 'one' });
    writeFileSync(join(root, 'other'), 'two');
    const manifest = join(root, 'm.jsonl');
    storing();
    const client = clientChanging((index) => {
      // While big.bin is sent: swapped.txt becomes another file (refused once opened and checked).
      if (index === 0) renameSync(join(root, 'other'), join(root, 'tree', 'swapped.txt'));
    });
    const first = await client.documents.uploadMany(1, join(root, 'tree'), { concurrency: 1, manifest });
    expect([first.uploaded.map((file) => file.path), first.failed.map((file) => file.path)]).toEqual([['big.bin', 'small.txt'], ['swapped.txt']]);
    expect(await openBelow(root)).toEqual([]);
    // The rerun hashes the stored files to skip them, through descriptors it must close as well.
    const rerun = await client.documents.uploadMany(1, join(root, 'tree'), { concurrency: 1, manifest });
    expect(rerun.skipped.map((file) => file.path)).toEqual(['big.bin', 'small.txt']);
    expect(await openBelow(root)).toEqual([]);
  });

  it('a large file that shrinks once its send began is failed (its body ends short), recorded with the size and SHA-256 of the bytes read, not its listed size', async () => {
    const size = 2 * 1024 * 1024;
    const root = makeTree({ 'big.bin': new Uint8Array(size).fill(5) });
    const manifest = join(root, 'm.jsonl');
    storing();
    const client = clientChanging(() => truncateSync(join(root, 'tree', 'big.bin'), size / 2));
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(result.uploaded).toEqual([]);
    const last = readFileSync(manifest, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { state: string; size: number; sha256: string }).at(-1)!;
    // Its body ended short of its Content-Length: the service cannot have stored it, and the rerun sends it.
    expect(last).toMatchObject({ path: 'big.bin', state: 'failed', size: size / 2, sha256: sha256(new Uint8Array(size / 2).fill(5)) });
    expect(result.failed.map((file) => file.path)).toEqual(['big.bin']);
  });
});
