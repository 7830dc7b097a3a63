import { readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.node.js';
import { openManifest } from '../../src/uploads/manifest-node.js';
import { makeTree } from './upload-many-support.js';

// The manifest's lock (manifest-lock-node.ts) left in odd states: what openManifest takes over and
// what it refuses.

const SCOPE = { room: 1, origin: 'http://127.0.0.1:1' };

describe('the manifest lock', () => {
  it.runIf(process.platform !== 'win32')('a lock that is a link to nothing is refused as unreadable, not taken over', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    symlinkSync(join(root, 'nowhere'), `${manifest}.lock`);
    const call = openManifest(manifest, SCOPE);
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process unknown (its lock file cannot be read)`);
  });

  it('an empty lock left an hour ago is taken over at once (nothing left to wait for)', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const lock = `${manifest}.lock`;
    writeFileSync(lock, '');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lock, anHourAgo, anHourAgo);
    const opened = await openManifest(manifest, SCOPE);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual({ pid: process.pid, host: hostname() });
    await opened.close();
  });

  it('a lock of a process of another user that runs (pid 1) is refused', async () => {
    // Signal 0 to another user's process fails with EPERM, which says it runs (root is let through).
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(`${manifest}.lock`, JSON.stringify({ pid: 1, host: hostname() }));
    await expect(openManifest(manifest, SCOPE)).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process 1 on ${hostname()}`);
  });

  it('a lock naming a pid no process can have (past 2^31) is refused, not taken over: whether it runs cannot be checked', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(`${manifest}.lock`, JSON.stringify({ pid: 2 ** 40, host: hostname() }));
    await expect(openManifest(manifest, SCOPE)).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process ${2 ** 40} on ${hostname()}`);
  });

  it('a lock that cannot be created (the manifest in a missing folder) is refused, naming the operation, the lock and the code', async () => {
    const root = makeTree({});
    const manifest = join(root, 'missing', 'm.jsonl');
    const call = openManifest(manifest, SCOPE);
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow(
      `[svc-sdk] documents.uploadMany: manifest: cannot create the lock "${manifest}.lock" beside the manifest (ENOENT): pass a manifest in a directory you can write. Nothing was sent.`,
    );
  });

  it.each([
    ['null', 'null'],
    ['not JSON', '{"pid": 12'],
  ])('a lock that holds %s is refused as unreadable', async (_what, content) => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(`${manifest}.lock`, content);
    await expect(openManifest(manifest, SCOPE)).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process unknown (its lock file cannot be read)`);
  });
});
