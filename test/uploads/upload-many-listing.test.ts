import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, storeEveryUpload } from './upload-many-support.js';

// The folder's listing (walk-node.ts) at its edges: entries the listing itself cannot read are
// each their own `failed`, entries gone since the directory was read are no files at all.

const service = useLoopbackServer();

// The SDK is loaded afresh in each test: the listing is loaded on first use, so its module-level
// constant (the operation's name) runs, and is checked, in every test.
beforeEach(() => {
  vi.resetModules();
});

async function client() {
  const { Client } = await import('../../src/index.node.js');
  return new Client({ apiKey: API_KEY, baseUrl: service.url });
}

async function failures(failed: ReadonlyArray<{ path: string; error: unknown }>) {
  const { ValidationError } = await import('../../src/index.node.js');
  return failed.map(({ path, error }) => [path, error instanceof ValidationError, (error as Error).message, (error as InstanceType<typeof ValidationError>).issues.map((issue) => issue.path)]);
}

describe('documents.uploadMany: what the listing cannot read', () => {
  it.runIf(process.platform === 'linux')('a name that is not UTF-8 is its failed, with the whole message; the others are sent', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    writeFileSync(Buffer.concat([Buffer.from(join(root, 'tree')), Buffer.from('/n'), Buffer.from([0xe9])]), 'latin-1 named');
    storeEveryUpload(service);
    const result = await (await client()).documents.uploadMany(1, join(root, 'tree'));
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(await failures(result.failed)).toEqual([
      [
        'n\\xe9',
        true,
        '[svc-sdk] documents.uploadMany: inputs.n\\xe9: the file name "n\\xe9" is not UTF-8, so it cannot be sent as a document\'s name: rename the file and run again. Nothing was sent.',
        [['inputs', 'n\\xe9']],
      ],
    ]);
  });

  it.runIf(process.platform === 'linux')('an entry gone between the directory read and its lstat is no file: neither sent nor failed', async () => {
    // /proc/self/fd lists the descriptor that reads it, closed once read: its entry is gone (ENOENT)
    // by the time it is looked at. Every other entry is a link, never sent.
    storeEveryUpload(service);
    const result = await (await client()).documents.uploadMany(1, '/proc/self/fd');
    expect([result.uploaded, result.failed, result.unknown]).toEqual([[], [], []]);
    expect(service.requests).toHaveLength(0);
  });

  it.runIf(process.platform === 'linux')('an entry whose path is too long to look at is its failed, naming it and its error code; the others are sent', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const tree = join(root, 'tree');
    // Nested directories of 200-byte names, made from inside (a relative mkdir each) until their
    // absolute path passes PATH_MAX (4096): the first one past it cannot be looked at (ENAMETOOLONG).
    const name = 'd'.repeat(200);
    const depth = Math.ceil((4096 - tree.length) / (name.length + 1)) + 1;
    execFileSync('sh', ['-c', `cd "$1" && for i in $(seq ${depth}); do mkdir ${name} && cd -P ${name}; done && echo deep > f.txt`, 'sh', tree]);
    let tooLong = '';
    while (Buffer.byteLength(join(tree, tooLong)) < 4096) tooLong = tooLong ? `${tooLong}/${name}` : name;
    storeEveryUpload(service);
    const result = await (await client()).documents.uploadMany(1, tree);
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(await failures(result.failed)).toEqual([
      [
        tooLong,
        true,
        `[svc-sdk] documents.uploadMany: inputs.${tooLong}: "${tooLong}" cannot be read (ENAMETOOLONG): fix its permissions and run again. Nothing was sent.`,
        [['inputs', tooLong]],
      ],
    ]);
  });

  it('a folder whose own entries cannot be read is one failed, named ".", and nothing is sent', async () => {
    const folder = unreadableFolder();
    if (!folder) return expect(process.getuid?.()).toBe(0); // root, and every directory readable: nothing to test here
    storeEveryUpload(service);
    const result = await (await client()).documents.uploadMany(1, folder.path);
    expect(await failures(result.failed)).toEqual([
      [
        '.',
        true,
        `[svc-sdk] documents.uploadMany: inputs..: the directory "." cannot be read (${folder.code}): its files were not sent; fix its permissions and run again. Nothing was sent.`,
        [['inputs', '.']],
      ],
    ]);
    expect([result.uploaded, service.requests]).toEqual([[], []]);
  });

  it('a name that starts with U+FEFF (the bytes of a byte order mark) is sent under that whole name', async () => {
    const root = makeTree({ '\uFEFFa.txt': 'bom', 'b.txt': 'b' });
    storeEveryUpload(service);
    const result = await (await client()).documents.uploadMany(1, join(root, 'tree'));
    expect([result.uploaded.map((file) => file.path), result.failed]).toEqual([['b.txt', '\uFEFFa.txt'], []]);
  });

  it.runIf(process.platform === 'linux')('a name that is not UTF-8, shown as another file\'s name, is its failed beside that file, sent', async () => {
    // n + 0xE9 is shown as n\xe9: the very name of the other file (a backslash and three letters).
    const root = makeTree({ 'n\\xe9': 'backslash named' });
    writeFileSync(Buffer.concat([Buffer.from(join(root, 'tree')), Buffer.from('/n'), Buffer.from([0xe9])]), 'latin-1 named');
    storeEveryUpload(service);
    const result = await (await client()).documents.uploadMany(1, join(root, 'tree'));
    expect([result.uploaded.map((file) => file.path), result.failed.map((file) => file.path)]).toEqual([['n\\xe9'], ['n\\xe9']]);
  });
});

/**
 * A directory this process can stat but not read: one of its own, mode 000 (not for root, who reads
 * everything), or for root /proc/1/map_files, which only a process with CAP_SYS_ADMIN in the
 * initial namespace reads. Undefined when none is unreadable.
 */
function unreadableFolder(): { path: string; code: string } | undefined {
  const candidates: string[] = ['/proc/1/map_files'];
  if (process.getuid?.() !== 0) {
    const root = makeTree({ 'a.txt': 'a' });
    chmodSync(join(root, 'tree'), 0o000);
    onTestFinished(() => chmodSync(join(root, 'tree'), 0o755));
    candidates.unshift(join(root, 'tree'));
  }
  for (const path of candidates) {
    try {
      readdirSync(path);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== undefined && code !== 'ENOENT') return { path, code };
    }
  }
  return undefined;
}
