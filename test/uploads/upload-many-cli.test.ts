import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { upload } from '../../packages/cli/src/commands/upload.js';
import { UsageError } from '../../packages/cli/src/command.js';
import { COMMANDS } from '../../packages/cli/src/commands/index.js';
import { runCli } from '../../packages/cli/src/run.js';
import { API_KEY, bundleForChild, emulatorWithRoom, makeTree, memoryIO as io } from './upload-many-support.js';

// `svc-sdk upload`: the command module run in process with its io replaced, and the bin (packages/cli/src/main.ts,
// bundled now) in a child process for Ctrl+C and the emulator's fault flags.


const FILES = { 'a.txt': 'alpha', 'b.txt': 'bravo', 'sub/c.txt': 'charlie' };

describe('svc-sdk upload (the command module)', () => {
  it('uploads a folder with plain progress lines off a terminal, a summary table, exit 0; the rerun skips every file', async () => {
    const root = makeTree(FILES);
    const { server, roomId, stored } = await emulatorWithRoom();
    const env = { SVC_API_KEY: API_KEY, SVC_BASE_URL: server.url };
    const args = [join(root, 'tree'), '--room', String(roomId), '--manifest', join(root, 'm.jsonl'), '--concurrency', '1'];
    const first = io(env);
    expect(await upload.run(args, first.io)).toBe(0);
    const lines = first.out().split('\n');
    expect(lines.filter((line) => /^\d+\/\d+ files/.test(line)).map((line) => line.split('  ').slice(0, 2).join('  '))).toEqual([
      '1/3 files  5 B/17 B',
      '2/3 files  10 B/17 B',
      '3/3 files  17 B/17 B',
    ]);
    expect(first.out()).toContain('state        files  bytes\nuploaded         3  17 B\nskipped          0  0 B\nfailed           0  0 B\nunknown          0  0 B\nnot started      0  0 B\n');
    expect(first.err()).toBe('');
    const second = io(env);
    expect(await upload.run(args, second.io)).toBe(0);
    expect(second.out()).toContain('uploaded         0  0 B\nskipped          3  17 B\n');
    expect(await stored()).toEqual({ 'a.txt': 1, 'b.txt': 1, 'c.txt': 1 });
  });

  it('draws a bar on a terminal, and exits 1 listing each failed file with its reason and what to do', async () => {
    // b.bin is cut off mid-body (a reset after 64 KiB of it): provably not stored, whatever the 5xx rule.
    const root = makeTree({ 'a.txt': 'alpha', 'b.bin': new Uint8Array(8 * 1024 * 1024).fill(0x62), 'sub/c.txt': 'charlie' });
    const { server, roomId } = await emulatorWithRoom({ resetAfterBytes: 64 * 1024 });
    // Without --manifest the CLI keeps one in the state directory (issue 30): here, the test's own.
    const run = io({ SVC_API_KEY: API_KEY, SVC_BASE_URL: server.url, XDG_STATE_HOME: join(root, 'state') }, true);
    expect(await upload.run([join(root, 'tree'), '--room', String(roomId), '--concurrency', '1'], run.io)).toBe(1);
    // The last bar shows what was stored (12 B of 2 files), not what was attempted (issue 30).
    expect(run.out()).toMatch(new RegExp(String.raw`\r\[-{30}\] 2/3 files stored {2}12 B/8\.0 MiB\x1b\[K\n`));
    expect(run.out()).toContain('uploaded         2  12 B\nskipped          0  0 B\nfailed           1  8.0 MiB\nunknown          0  0 B\nnot started      0  0 B\n');
    expect(run.out()).toContain(`failed   b.bin: POST /api/v1/rooms/${roomId}/documents `);
    expect(run.out()).toContain('Failed files were not stored: run the same command again to send them (files already stored are skipped).');
    expect(run.err()).toMatch(/^\[svc-sdk\] manifest: .*\/state\/svc-sdk\/uploads\/room-\d+-[0-9a-f]{32}\.jsonl \(kept for this service, room and folder; a rerun skips what is stored\)\n$/);
  });

  it.each([
    [[], {}, 'upload needs a directory: svc-sdk upload <dir> --room <id>'],
    [['d', 'e', '--room', '1'], {}, 'upload takes one directory, got also: e'],
    [['d'], {}, "--room is required: the room's id, a whole number such as 7"],
    [['d', '--room', '0'], {}, `--room is required: the room's id, a whole number such as 7 (got "0")`],
    [['d', '--room', '1', '--concurrency', '0'], {}, '--concurrency must be a whole number from 1 to 64, got "0"'],
    [['d', '--room', '1', '--concurrency', '65'], {}, '--concurrency must be a whole number from 1 to 64, got "65"'],
    [['d', '--room', '1', '--wat'], {}, "Unknown option '--wat' (svc-sdk upload --help)"],
    [['d', '--room', '1'], { SVC_BASE_URL: 'http://127.0.0.1:9' }, 'apiKey is missing: set SVC_API_KEY (the emulator prints both: svc-sdk emulator)'],
  ])('upload %j with env %j is a usage error: %s', async (args, env, message) => {
    const run = io(env);
    const error = await upload.run(args, run.io).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(message);
    expect(run.out()).toBe('');
  });

  it('--help prints its usage (answered by the dispatcher, as for every command)', async () => {
    const run = io({});
    expect(await runCli(['upload', '--help'], run.io, COMMANDS)).toBe(0);
    expect(run.out()).toMatch(/^Usage: svc-sdk upload <dir> --room <id> \[--concurrency n\] \[--manifest file\] \[--retry-unknown\]\n/);
  });

  it('a directory that cannot be read: the message, exit 1', async () => {
    const run = io({ SVC_API_KEY: API_KEY, SVC_BASE_URL: 'http://127.0.0.1:9' });
    expect(await upload.run(['/no/such/dir', '--room', '1'], run.io)).toBe(1);
    expect(run.err()).toContain('[svc-sdk] documents.uploadMany: inputs: cannot read the directory "/no/such/dir" (ENOENT)');
  });
});

describe('svc-sdk (the bin, from the sources)', () => {
  let cli = '';
  beforeAll(async () => {
    cli = await bundleForChild(new URL('../../packages/cli/src/main.ts', import.meta.url));
  });

  function start(args: string[], env: Record<string, string>) {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, out: () => out, err: () => err, exited };
  }

  it('Ctrl+C stops the upload cleanly: every file sent has its outcome in the manifest, a summary, exit 130', async () => {
    const root = makeTree(Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`f${String(index).padStart(2, '0')}.txt`, `file ${index}`])));
    const manifest = join(root, 'm.jsonl');
    const { server, roomId } = await emulatorWithRoom({ latencyMs: 200 });
    const run = start(['upload', join(root, 'tree'), '--room', String(roomId), '--manifest', manifest, '--concurrency', '2'], { SVC_API_KEY: API_KEY, SVC_BASE_URL: server.url });
    await new Promise<void>((resolve) => {
      const check = () => (run.out().includes(' files  ') ? resolve() : setTimeout(check, 10));
      check();
    });
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.err()).toContain('[svc-sdk] SIGINT: no new file starts; the files being sent finish (Ctrl+C again aborts them)');
    expect(run.out()).toMatch(/state {8}files {2}bytes\n/);
    const lines = readFileSync(manifest, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { path: string; state: string });
    const open = new Set<string>();
    for (const { path, state } of lines) {
      if (state === 'sending') open.add(path);
      else open.delete(path);
    }
    expect(open.size).toBe(0);
    // The files being sent when Ctrl+C came finish (issue 30: a first Ctrl+C lets them); the rest are not started.
    const count = (state: string) => Number(new RegExp(`^${state} +(\\d+) `, 'm').exec(run.out())![1]);
    expect(count('uploaded')).toBeLessThan(20);
    expect(count('uploaded') + count('failed') + count('unknown') + count('not started')).toBe(20);
    expect(count('failed') + count('unknown') + count('not started')).toBeGreaterThan(0);
    expect(lines.filter((line) => line.state === 'uploaded').length).toBe(count('uploaded'));
  });

  it('svc-sdk emulator --unavailable-rate 1 --latency-ms 1 answers 503 and says which faults are on', async () => {
    const run = start(['emulator', '--port', '0', '--unavailable-rate', '1', '--latency-ms', '1'], {});
    await new Promise<void>((resolve) => {
      const check = () => (run.out().includes('Press Ctrl+C') ? resolve() : setTimeout(check, 10));
      check();
    });
    expect(run.out()).toContain('  faults: latencyMs 1, unavailableRate 1\n');
    const url = /listening on (\S+)/.exec(run.out())![1]!;
    const response = await fetch(`${url}/api/v1/rooms`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` } });
    expect(response.status).toBe(503);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });

  it.each([
    [['--unavailable-rate', '2'], '[svc-sdk] --unavailable-rate must be a share from 0 to 1, such as 0.1, got "2"'],
    [['--latency-ms', '1.5'], '[svc-sdk] --latency-ms must be a whole number from 0 to 600000, got "1.5"'],
    [['--reset-after-bytes', '0'], '[svc-sdk] --reset-after-bytes must be a whole number from 1 to 9007199254740991, got "0"'],
  ])('svc-sdk emulator %j exits 2: %s', async (flags, message) => {
    const run = start(['emulator', '--port', '0', ...flags], {});
    expect(await run.exited).toBe(2);
    expect(run.err()).toBe(`${message}\n`);
  });
});
