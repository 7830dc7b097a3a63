import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.node.js';
import { openManifest } from '../../src/uploads/manifest-node.js';
import { makeTree } from './upload-many-support.js';

// Links planted by anyone who can write the manifest's folder: at the manifest's own path, and at the
// name its compaction's temporary file had in svc-sdk 0.4 (`<manifest>.compact`). Neither may make a
// run write a file outside the manifest.

const SCOPE = { room: 1, origin: 'http://127.0.0.1:1' };
const line = (path: string, error: string) => `${JSON.stringify({ path, state: 'failed', size: 1, error, ...SCOPE })}\n`;
const OUTSIDE = 'a file of someone else\n';

describe.runIf(process.platform !== 'win32')('openManifest and planted links', () => {
  it('a link at the old fixed temporary name: the compaction writes a new file of its own, the link and its target untouched', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const target = join(root, 'outside.txt');
    writeFileSync(target, OUTSIDE);
    // Two records of one path: the first is superseded, so opening compacts.
    writeFileSync(manifest, line('a.txt', 'first') + line('a.txt', 'second'));
    symlinkSync(target, `${manifest}.compact`);
    const opened = await openManifest(manifest, SCOPE);
    await opened.close();
    expect(readFileSync(target, 'utf8')).toBe(OUTSIDE);
    expect(lstatSync(`${manifest}.compact`).isSymbolicLink()).toBe(true);
    // The manifest is the compacted file itself, not a link renamed over it.
    expect(lstatSync(manifest).isFile()).toBe(true);
    expect(readFileSync(manifest, 'utf8')).toBe(line('a.txt', 'second'));
    // No temporary file left beside it.
    expect(readdirSync(root).sort()).toEqual(['m.jsonl', 'm.jsonl.compact', 'outside.txt', 'tree']);
  });

  it('a link at the manifest path is refused, naming the path and the fix; its target is never written', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const target = join(root, 'outside.jsonl');
    // A target that reads as a manifest needing compaction: following the link would rewrite it.
    writeFileSync(target, line('a.txt', 'first') + line('a.txt', 'second'));
    const before = readFileSync(target, 'utf8');
    symlinkSync(target, manifest);
    const call = openManifest(manifest, SCOPE);
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toMatchObject({
      message: `[svc-sdk] documents.uploadMany: manifest "${manifest}" is a symbolic link: pass the path of the manifest file itself (a link is refused: whoever can write its folder could point it at another file). Nothing was sent.`,
    });
    expect(readFileSync(target, 'utf8')).toBe(before);
    expect(existsSync(`${manifest}.lock`)).toBe(false);
  });

  it('a link into a missing folder at the manifest path is refused as a link (not created through it)', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const target = join(root, 'new.jsonl');
    symlinkSync(target, manifest);
    await expect(openManifest(manifest, SCOPE)).rejects.toMatchObject({ message: expect.stringMatching(/manifest ".*" is a symbolic link: pass the path of the manifest file itself \(a link is refused: whoever can write its folder could point it at another file\)\. Nothing was sent\.$/) });
    expect(existsSync(target)).toBe(false);
  });
  it.runIf(process.platform === 'linux')('a link swapped in after the check is refused by the open (O_NOFOLLOW), and its target never written', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const target = join(root, 'outside.jsonl');
    writeFileSync(target, OUTSIDE);
    writeFileSync(manifest, '');
    const lock = `${manifest}.lock`;
    // The lock is a FIFO: the run reads its holder from it, and waits there, past the manifest's check, until a holder is written.
    expect(spawnSync('mkfifo', [lock]).status).toBe(0);
    const opening = openManifest(manifest, SCOPE);
    opening.catch(() => undefined);
    const writer = await open(lock, 'w');
    rmSync(manifest);
    symlinkSync(target, manifest);
    await writer.write(JSON.stringify({ pid: spawnSync('true').pid, host: hostname() }));
    await writer.close();
    await expect(opening).rejects.toMatchObject({ message: expect.stringContaining(`manifest "${manifest}" is a symbolic link: pass the path of the manifest file itself`) });
    expect(readFileSync(target, 'utf8')).toBe(OUTSIDE);
  });
});
