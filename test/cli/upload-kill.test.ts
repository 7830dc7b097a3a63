import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, emulatorWithRoom, makeTree } from '../uploads/upload-many-support.js';
import { bundleCli, cliEnv, countOf } from './upload-support.js';

// `svc-sdk upload` killed at random points, 50 times, by SIGKILL (nothing runs after it) and SIGTERM
// (the CLI's own stop), each time rerun as its advice says: the same command, no --manifest (the
// state directory's). At the end no document is stored twice and none is lost: every file is stored,
// or listed unknown (sent, no answer recorded), which a rerun never resends on its own.

const KILLS = 50;
const FILES = 300;

let cli = '';
beforeAll(async () => {
  cli = await bundleCli();
}, 60_000);

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** One run of the CLI; `kill` decides when (after the manifest line) and how it is stopped, if at all. */
function runOnce(args: string[], env: Record<string, string>, kill?: { afterMs: number; signal: NodeJS.Signals; thenKillAfterMs?: number }): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv(env) });
    let stdout = '';
    let stderr = '';
    let armed = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
      if (kill && !armed && stderr.includes('[svc-sdk] manifest: ')) {
        armed = true;
        setTimeout(() => {
          child.kill(kill.signal);
          if (kill.thenKillAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), kill.thenKillAfterMs);
        }, kill.afterMs);
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The last state the manifest records for each path. */
function lastStates(path: string): Map<string, string> {
  const last = new Map<string, string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    let record: { path?: unknown; state?: unknown };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      continue; // a line torn by a SIGKILL, or not a record
    }
    if (typeof record.path === 'string' && typeof record.state === 'string') last.set(record.path, record.state);
  }
  return last;
}

describe('svc-sdk upload killed and rerun', () => {
  it(`${KILLS} kills (SIGKILL and SIGTERM at random points), each followed by the same command: no document stored twice, none lost`, async () => {
    const names = Array.from({ length: FILES }, (_, index) => `d${String(index).padStart(3, '0')}.txt`);
    const root = makeTree(Object.fromEntries(names.map((name, index) => [name, `document ${index} `.repeat(200)])));
    const { server, roomId, stored } = await emulatorWithRoom({ latencyMs: 15 });
    const env = { SVC_API_KEY: API_KEY, SVC_BASE_URL: server.url, XDG_STATE_HOME: join(root, 'state') };
    const args = ['upload', join(root, 'tree'), '--room', String(roomId), '--concurrency', '4'];
    // A seeded generator: a failure names the seed that reproduces its kill points.
    const seed = Number(process.env['UPLOAD_KILL_SEED'] ?? Date.now() % 100_000);
    let state = seed;
    const random = () => ((state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
    const endings: string[] = [];
    let kills = 0;
    const started = performance.now();
    while (kills < KILLS) {
      const signal: NodeJS.Signals = random() < 0.5 ? 'SIGKILL' : 'SIGTERM';
      // Some SIGTERMs are followed by a SIGKILL while the run stops (a second, impatient stop).
      const thenKillAfterMs = signal === 'SIGTERM' && random() < 0.3 ? Math.floor(random() * 40) : undefined;
      const ended = await runOnce(args, env, { afterMs: Math.floor(random() * 120), signal, thenKillAfterMs });
      expect(ended.stderr, `seed ${seed}`).not.toMatch(/in use by process|Error:|ERR_/);
      if (ended.signal !== null || ended.code === 143) kills += 1;
      endings.push(ended.signal ?? String(ended.code));
      if (ended.code === 0) break; // everything stored before the kills ran out: the rest would kill nothing
    }
    const final = await runOnce(args, env);
    const manifest = /\[svc-sdk\] manifest: (\S+) /.exec(final.stderr)![1]!;
    const counts = await stored();
    const last = lastStates(manifest);
    const twice = Object.entries(counts).filter(([, times]) => times > 1);
    expect(twice, `seed ${seed}, runs ended ${endings.join(' ')}`).toEqual([]);
    const lost = names.filter((name) => counts[name] === undefined && !['unknown', 'sending'].includes(last.get(name) ?? ''));
    expect(lost, `seed ${seed}`).toEqual([]);
    const unknown = names.filter((name) => ['unknown', 'sending'].includes(last.get(name) ?? ''));
    expect(countOf(final.stdout, 'unknown')).toBe(unknown.length);
    expect(countOf(final.stdout, 'uploaded') + countOf(final.stdout, 'skipped') + unknown.length).toBe(FILES);
    expect(final.code).toBe(unknown.length ? 1 : 0);
    expect(kills, 'the folder was stored before every kill was made: give it more files').toBe(KILLS);
    // SIGTERM is the CLI's own stop (exit 143 with its summary), never the default death by signal.
    expect(endings).not.toContain('SIGTERM');
    console.info(`[upload-kill] seed ${seed}: ${kills} kills in ${endings.length} runs, ${unknown.length} files left unknown, ${Math.round(performance.now() - started)} ms`);
  }, 120_000);

  it('SIGTERM the moment the manifest line shows is still the CLI\'s own stop: exit 143, a summary, no file left sending', async () => {
    const root = makeTree(Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`e${index}.txt`, `early ${index}`])));
    const { server, roomId } = await emulatorWithRoom({ latencyMs: 50 });
    const env = { SVC_API_KEY: API_KEY, SVC_BASE_URL: server.url, XDG_STATE_HOME: join(root, 'state') };
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const ended = await runOnce(['upload', join(root, 'tree'), '--room', String(roomId)], env, { afterMs: 0, signal: 'SIGTERM' });
      if (ended.code === 0) continue; // this run had nothing left to send before the signal came
      expect([ended.signal, ended.code]).toEqual([null, 143]);
      expect(ended.stdout).toContain('state        files  bytes\n');
      const manifest = /\[svc-sdk\] manifest: (\S+) /.exec(ended.stderr)![1]!;
      expect([...lastStates(manifest)].filter(([, state]) => state === 'sending')).toEqual([]);
    }
  }, 60_000);
});
