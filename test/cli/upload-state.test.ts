import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upload } from '../../packages/cli/src/commands/upload.js';
import { folderKey, uploadStateDirectory, uploadStatePath } from '../../packages/cli/src/upload-state.js';
import { API_KEY, emulatorWithRoom, makeTree, memoryIO as io } from '../uploads/upload-many-support.js';
import { bundleCli, cliEnv, refusingService } from './upload-support.js';

// Without --manifest, `svc-sdk upload` keeps a manifest per service origin, room and folder in the
// user's state directory: "run the same command again" resumes, it never stores a document twice.


const count = (text: string, state: string) => Number(new RegExp(`^${state} +(\\d+) `, 'm').exec(text)?.[1]);

describe('the state directory', () => {
  it.each([
    [{ XDG_STATE_HOME: '/x/state', HOME: '/home/a' }, 'linux', '/x/state/svc-sdk/uploads'],
    [{ HOME: '/home/a' }, 'linux', '/home/a/.local/state/svc-sdk/uploads'],
    // The XDG specification: a relative path is invalid and ignored.
    [{ XDG_STATE_HOME: 'state', HOME: '/home/a' }, 'darwin', '/home/a/.local/state/svc-sdk/uploads'],
    [{ LOCALAPPDATA: 'C:\\Users\\a\\AppData\\Local', XDG_STATE_HOME: '/x' }, 'win32', 'C:\\Users\\a\\AppData\\Local\\svc-sdk\\uploads'],
    [{ USERPROFILE: 'C:\\Users\\b' }, 'win32', 'C:\\Users\\b\\AppData\\Local\\svc-sdk\\uploads'],
  ] as const)('env %j on %s: %s', (env, platform, directory) => {
    expect(uploadStateDirectory(env, platform)).toBe(directory);
  });

  it('one manifest per origin, room and folder: any of the three changed is another file', () => {
    const env = { XDG_STATE_HOME: '/s' };
    const key = { origin: 'https://api.example.com', roomId: 7, folder: '/data/deal' };
    const path = uploadStatePath(env, key, 'linux');
    expect(path).toMatch(/^\/s\/svc-sdk\/uploads\/room-7-[0-9a-f]{32}\.jsonl$/);
    expect(uploadStatePath(env, { ...key }, 'linux')).toBe(path);
    const others = [{ ...key, origin: 'https://staging.example.com' }, { ...key, roomId: 8 }, { ...key, folder: '/data/deal2' }].map((other) => uploadStatePath(env, other, 'linux'));
    expect(new Set([path, ...others]).size).toBe(4);
  });

  it('the same folder through a symbolic link is the same key', () => {
    const root = makeTree({ 'a.txt': 'a' });
    symlinkSync(join(root, 'tree'), join(root, 'link'));
    expect(folderKey(join(root, 'link'))).toBe(folderKey(join(root, 'tree')));
    expect(folderKey(join(root, 'missing'))).toBeUndefined();
  });
});

describe('svc-sdk upload without --manifest', () => {
  it('says where its manifest is, and the rerun it advises skips every file stored: none twice', async () => {
    const root = makeTree({ 'a.txt': 'alpha', 'b.txt': 'bravo' });
    const { emulator, server, roomId, stored } = await emulatorWithRoom();
    const env = { SVC_API_KEY: API_KEY, SVC_BASE_URL: server.url, XDG_STATE_HOME: join(root, 'state') };
    const args = [join(root, 'tree'), '--room', String(roomId), '--concurrency', '1'];
    const first = io(env);
    expect(await upload.run(args, first.io)).toBe(0);
    const manifest = /^\[svc-sdk\] manifest: (\S+) /m.exec(first.err())![1]!;
    expect(manifest.startsWith(join(root, 'state', 'svc-sdk', 'uploads', `room-${roomId}-`))).toBe(true);
    expect(existsSync(manifest)).toBe(true);
    expect(statSync(join(root, 'state', 'svc-sdk', 'uploads')).mode & 0o777).toBe(0o700);
    expect(count(first.out(), 'uploaded')).toBe(2);
    // A new file whose upload is cut off mid-body (provably not stored): the run advises a rerun.
    writeFileSync(join(root, 'tree', 'c.txt'), new Uint8Array(8 * 1024 * 1024).fill(0x63));
    emulator.faults.resetAfterBytes = 64 * 1024;
    const second = io(env);
    expect(await upload.run(args, second.io)).toBe(1);
    expect([count(second.out(), 'skipped'), count(second.out(), 'failed')]).toEqual([2, 1]);
    expect(second.out()).toContain('Failed files were not stored: run the same command again to send them');
    // The advice followed, the fault gone: the stored files are skipped, the failed one sent.
    emulator.faults.resetAfterBytes = undefined;
    const third = io(env);
    expect(await upload.run(args, third.io)).toBe(0);
    expect(third.err()).toContain(`[svc-sdk] manifest: ${manifest} `);
    expect([count(third.out(), 'uploaded'), count(third.out(), 'skipped')]).toEqual([1, 2]);
    expect(await stored()).toEqual({ 'a.txt': 1, 'b.txt': 1, 'c.txt': 1 });
    expect(readdirSync(join(root, 'state', 'svc-sdk', 'uploads')).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1);
  });

  it('--retry-unknown acts on that manifest: an unknown file stays unsent without it, is sent with it', async () => {
    const root = makeTree({ 'a.txt': 'alpha', 'slow.txt': 'slow answer' });
    const { emulator, server, client, roomId, stored } = await emulatorWithRoom();
    const env = { SVC_API_KEY: API_KEY, SVC_BASE_URL: server.url, XDG_STATE_HOME: join(root, 'state') };
    const folder = join(root, 'tree');
    const manifest = uploadStatePath(env, { origin: new URL(server.url).origin, roomId, folder: folderKey(folder)! });
    mkdirSync(join(root, 'state', 'svc-sdk', 'uploads'), { recursive: true });
    // An earlier run into the same state manifest whose answers came too late: both files unknown (sent, no answer).
    emulator.faults.latencyMs = 400;
    const earlier = await client.documents.uploadMany(roomId, folder, { manifest, timeout: 100 });
    expect(earlier.unknown.map((file) => file.path).sort()).toEqual(['a.txt', 'slow.txt']);
    emulator.faults.latencyMs = 0;
    writeFileSync(join(folder, 'new.txt'), 'new');
    const plain = io(env);
    expect(await upload.run([folder, '--room', String(roomId)], plain.io)).toBe(1);
    expect([count(plain.out(), 'uploaded'), count(plain.out(), 'unknown')]).toEqual([1, 2]);
    expect(plain.out()).toContain('add --retry-unknown to send them again');
    const retried = io(env);
    expect(await upload.run([folder, '--room', String(roomId), '--retry-unknown'], retried.io)).toBe(0);
    expect([count(retried.out(), 'uploaded'), count(retried.out(), 'skipped')]).toEqual([2, 1]);
    // The late answers stored the first two; the retry stored them again, as --retry-unknown warns it may.
    expect(await stored()).toEqual({ 'a.txt': 2, 'slow.txt': 2, 'new.txt': 1 });
  });

  it('a state directory that cannot be made: a message naming it and the way around, nothing sent', async () => {
    const root = makeTree({ 'a.txt': 'alpha' });
    writeFileSync(join(root, 'not-a-dir'), 'a file where the state directory should go');
    const service = await refusingService(() => ({ status: 500, error: 'nothing should arrive' }));
    const run = io({ SVC_API_KEY: API_KEY, SVC_BASE_URL: service.url, XDG_STATE_HOME: join(root, 'not-a-dir') });
    expect(await upload.run([join(root, 'tree'), '--room', '7'], run.io)).toBe(1);
    expect(run.err()).toBe(
      `[svc-sdk] cannot create the upload state directory ${join(root, 'not-a-dir', 'svc-sdk', 'uploads')} (ENOTDIR): set XDG_STATE_HOME to a writable directory or pass --manifest <file>\n`,
    );
    expect(service.seen).toEqual([]);
  });
});

describe('two runs of the same upload at once', () => {
  // Needs uploadMany's manifest lock (issue 30, branch i30a): fails on branch i30b alone.
  it('the second is refused naming the first one\'s process, and nothing is stored twice', async () => {
    const cli = await bundleCli();
    const root = makeTree(Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`f${index}.txt`, `file ${index}`])));
    const { server, roomId, stored } = await emulatorWithRoom({ latencyMs: 300 });
    const env = cliEnv({ SVC_API_KEY: API_KEY, SVC_BASE_URL: server.url, XDG_STATE_HOME: join(root, 'state') });
    const args = [cli, 'upload', join(root, 'tree'), '--room', String(roomId), '--concurrency', '2'];
    const first = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let firstErr = '';
    first.stderr.on('data', (chunk: Buffer) => (firstErr += chunk));
    const firstEnded = new Promise<number | null>((resolve) => first.on('close', resolve));
    await expect.poll(() => firstErr, { timeout: 10_000 }).toContain('[svc-sdk] manifest: ');
    const second = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`\\[svc-sdk\\] manifest \\S+ is in use by process ${first.pid}`));
    expect(await firstEnded).toBe(0);
    expect(Object.values(await stored()).every((times) => times === 1)).toBe(true);
    expect(Object.keys(await stored())).toHaveLength(8);
  }, 30_000);
});
