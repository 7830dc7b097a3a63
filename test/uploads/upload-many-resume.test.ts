import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { API_KEY, bundleForChild, emulatorWithRoom, makeTree } from './upload-many-support.js';

// A run of documents.uploadMany killed (SIGKILL) in the middle, and its rerun: whatever line the
// kill fell on, the rerun stores no document twice and every file ends stored or reported unknown.

let child = '';
beforeAll(async () => {
  child = await bundleForChild(new URL('upload-many-child.ts', import.meta.url));
});

const TWELVE_FILES = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`f${String(index).padStart(2, '0')}.bin`, new Uint8Array(20_000 + index).fill(index)]));

interface Line {
  path: string;
  state: string;
}

const readLines = (manifest: string): Line[] =>
  readFileSync(manifest, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Line);

/**
 * Starts the child and SIGKILLs it once it has reported `killAfter` bodies sent (a progress line
 * with more bytes and the same files done): the emulator answers 150 ms after storing, so that file
 * is still in flight when the kill lands.
 */
function runAndKill(args: string[], killAfter: number): Promise<{ killed: boolean }> {
  return new Promise((resolve, reject) => {
    const running = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let sent = 0;
    let buffered = '';
    let before = [0, 0];
    running.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const now = line.split(' ').map(Number);
        if (now[0] === before[0] && now[1]! > before[1]!) sent += 1;
        before = now;
      }
      if (sent >= killAfter) running.kill('SIGKILL');
    });
    running.on('error', reject);
    running.on('exit', (_code, signal) => resolve({ killed: signal === 'SIGKILL' }));
  });
}

describe('documents.uploadMany killed mid-run, then run again', () => {
  it.each([1, 5, 10])('SIGKILL after %i bodies sent: no document stored twice, every file stored or unknown', async (killAfter) => {
    const root = makeTree(TWELVE_FILES);
    const manifest = join(root, 'manifest.jsonl');
    // Answers come 150 ms after the document is stored: a kill finds uploads in flight.
    const { client, roomId, stored, server, emulator } = await emulatorWithRoom({ latencyMs: 150 });
    const killed = await runAndKill([server.url, String(roomId), join(root, 'tree'), manifest], killAfter);
    expect(killed.killed).toBe(true);
    const inFlight = new Set<string>();
    for (const { path, state } of readLines(manifest)) {
      if (state === 'sending') inFlight.add(path);
      else inFlight.delete(path);
    }
    expect(inFlight.size).toBeGreaterThan(0);

    emulator.faults.latencyMs = 0;
    const rerun = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(rerun.failed).toEqual([]);
    expect(rerun.unknown.map((file) => file.path).sort()).toEqual([...inFlight].sort());
    const counts = await stored();
    for (const name of Object.keys(TWELVE_FILES)) {
      expect(counts[name] ?? 0, name).toBe(inFlight.has(name) ? (counts[name] ?? 0) : 1);
      expect(counts[name] ?? 0, name).toBeLessThanOrEqual(1);
    }
    // A third run changes nothing: the unknown stay unknown, the rest skipped.
    const third = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    expect(third.uploaded).toEqual([]);
    expect(third.unknown.map((file) => file.path).sort()).toEqual([...inFlight].sort());
    expect(third.skipped).toHaveLength(12 - inFlight.size);
    expect(await stored()).toEqual(counts);
  });

  it('50 kills (SIGKILL and SIGTERM) at random points on one manifest, then a rerun: no document stored twice, none lost', async () => {
    const files = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`k${String(index).padStart(2, '0')}.txt`, `kill test file ${index}\n`.repeat(50 + index)]));
    const root = makeTree(files);
    const manifest = join(root, 'manifest.jsonl');
    const { client, roomId, stored, server, emulator } = await emulatorWithRoom({ latencyMs: 20 });
    // A fixed seed: a failure names the kill that found it, and reruns the same sequence.
    let seed = 30;
    let interrupted = 0;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let kill = 0; kill < 50; kill += 1) {
      const signal = kill % 2 ? 'SIGTERM' : 'SIGKILL';
      const running = spawn(process.execPath, [child, server.url, String(roomId), join(root, 'tree'), manifest], { stdio: 'ignore' });
      const exited = new Promise((resolve) => running.once('exit', resolve));
      // The kill's clock starts once the run holds its lock (a loaded machine may take a second to start a
      // process): then it lands at a random point of the run itself, not of the process's start.
      for (const until = Date.now() + 5000; !existsSync(`${manifest}.lock`) && running.exitCode === null && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 5));
      const timer = setTimeout(() => running.kill(signal), Math.floor(random() * 120));
      await exited;
      clearTimeout(timer);
      // A run killed mid-way leaves its lock: the next one must take it over (its process is gone).
      if (existsSync(`${manifest}.lock`)) interrupted += 1;
      const counts = await stored();
      expect({ kill, twice: Object.entries(counts).filter(([, count]) => count > 1) }).toEqual({ kill, twice: [] });
    }
    expect(interrupted).toBeGreaterThan(10);
    emulator.faults.latencyMs = 0;
    const rerun = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
    const counts = await stored();
    expect(rerun.failed).toEqual([]);
    for (const name of Object.keys(files)) expect(counts[name] ?? 0, name).toBeLessThanOrEqual(1);
    // None lost: what the rerun calls stored is stored once; what was never stored is reported unknown, not stored.
    for (const file of [...rerun.uploaded, ...rerun.skipped]) expect(counts[file.path], file.path).toBe(1);
    for (const name of Object.keys(files).filter((path) => !counts[path])) expect(rerun.unknown.map((file) => file.path)).toContain(name);
    expect(rerun.uploaded.length + rerun.skipped.length + rerun.unknown.length).toBe(40);
  }, 120_000);

  it('the manifest cut at any byte of a line end, or inside one, is trusted by the rerun: it sends exactly the files with no sending line, or failed', async () => {
    const files = { 'a.txt': 'alpha', 'b.txt': 'bravo', 'c.txt': 'charlie', 'd.txt': 'delta' };
    const root = makeTree(files);
    const complete = join(root, 'complete.jsonl');
    const { client, roomId, stored, server } = await emulatorWithRoom();
    // One at a time: b and d are refused 422 before their body is read (failed), a and c stored.
    let sent = 0;
    const refusing = new Client({
      apiKey: API_KEY,
      baseUrl: server.url,
      fetch: (input, init) => (++sent % 2 === 0 ? Promise.resolve(Response.json({ error: 'refused by the test' }, { status: 422 })) : fetch(input, init)),
    });
    const first = await refusing.documents.uploadMany(roomId, join(root, 'tree'), { manifest: complete, concurrency: 1 });
    expect(first.failed.map((file) => file.path)).toEqual(['b.txt', 'd.txt']);
    const text = readFileSync(complete, 'utf8');
    const cuts = new Set<number>([0, text.length]);
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
      for (const cut of [index - 5, index, index + 1, index + 2]) if (cut >= 0 && cut <= text.length) cuts.add(cut);
    }
    expect(cuts.size).toBeGreaterThan(20);
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      const prefix = text.slice(0, cut);
      // A last line cut at its newline alone is a whole record: kept. Cut anywhere else: dropped.
      const tail = prefix.slice(prefix.lastIndexOf('\n') + 1);
      const whole = text[cut] === '\n' ? prefix : prefix.slice(0, prefix.length - tail.length);
      const last = new Map<string, string>();
      for (const line of whole.split('\n').filter(Boolean)) {
        const { path, state } = JSON.parse(line) as Line;
        last.set(path, state);
      }
      const expected = {
        uploaded: Object.keys(files).filter((path) => !last.has(path) || last.get(path) === 'failed'),
        skipped: Object.keys(files).filter((path) => last.get(path) === 'uploaded'),
        unknown: Object.keys(files).filter((path) => last.get(path) === 'sending'),
      };
      const manifest = join(root, `cut-${cut}.jsonl`);
      writeFileSync(manifest, prefix);
      const before = await stored();
      const rerun = await client.documents.uploadMany(roomId, join(root, 'tree'), { manifest });
      const after = await stored();
      const sent = Object.keys(files).filter((path) => (after[path] ?? 0) > (before[path] ?? 0));
      expect({ cut, sent }).toEqual({ cut, sent: expected.uploaded });
      expect({ cut, uploaded: rerun.uploaded.map((file) => file.path) }).toEqual({ cut, uploaded: expected.uploaded });
      expect({ cut, skipped: rerun.skipped.map((file) => file.path) }).toEqual({ cut, skipped: expected.skipped });
      expect({ cut, unknown: rerun.unknown.map((file) => file.path) }).toEqual({ cut, unknown: expected.unknown });
      expect(rerun.failed).toEqual([]);
      // The cut line was dropped (or kept, whole), the file compacted to one line per path, the rerun's lines appended whole.
      expect(readFileSync(manifest, 'utf8').endsWith('\n') || readFileSync(manifest, 'utf8') === '').toBe(true);
      expect(readLines(manifest).length).toBe(last.size + 2 * expected.uploaded.length);
    }
  });
});
