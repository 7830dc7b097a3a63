// documents.uploadMany against a sequential loop of documents.upload and against raw fetch with the
// same concurrency and the same multipart bodies, through the built package.
//   node bench/upload-many.mjs            prints a table and a JSON line (npm run bench runs it as a section)
// Sizes by environment: UPLOAD_MANY_SMALL_FILES (1000) of UPLOAD_MANY_SMALL_KIB (64) KiB, UPLOAD_MANY_LARGE_FILES (8)
// of UPLOAD_MANY_LARGE_MIB (256) MiB, UPLOAD_MANY_LATENCY_MS (20), UPLOAD_MANY_CONCURRENCY (8), UPLOAD_MANY_ROUNDS (3;
// the cases run interleaved, A B C D, B C D A, …: times are medians, ratios medians of the ratios within a round).
// The small files go to the emulator (svc-sdk/testing) with its latency fault. The large ones go to a node:http server
// with the same added latency that reads and discards the body: the emulator keeps every document's bytes in memory
// (8 × 256 MiB at once would hold 2 GiB in the server, plus each upload's chunks until it is parsed).
// Each case runs in a fresh child process, which reports its wall time and its own peak RSS (bench/lib/peak-rss.mjs:
// Linux's VmHWM, not maxRSS, which counts this parent's RSS at spawn time).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineRef } from './lib/baseline.mjs';
import { peakRssKiB } from './lib/peak-rss.mjs';
import { median, table, verdict } from './lib/stats.mjs';

const KIB = 1024;
const MIB = 1024 * KIB;
const API_KEY = 'vdr_bench_upload_many';
// A function declaration below is hoisted; the constants are not: keep them above the run.
const CASES = ['uploadMany', 'uploadManyPlain', 'sequential', 'rawFetch'];
/** The cases of this run: with `--baseline <ref>`, that build's uploadMany (directory + manifest) as one more, interleaved. */
const casesOf = () => (baselineRef() ? [...CASES, 'baselineUploadMany'] : CASES);

if (process.argv[2] === '--child') await child(...process.argv.slice(3));
else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await benchUploadMany({ quick: process.argv.includes('--quick') });
  console.log(renderUploadMany(results));
  console.log(JSON.stringify({ bench: 'upload-many', ...results }));
}

function settings(quick) {
  const number = (name, fallback) => {
    const raw = process.env[name];
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
    return value;
  };
  return {
    smallFiles: number('UPLOAD_MANY_SMALL_FILES', quick ? 300 : 1000),
    smallKiB: number('UPLOAD_MANY_SMALL_KIB', 64),
    largeFiles: number('UPLOAD_MANY_LARGE_FILES', 8),
    largeMiB: number('UPLOAD_MANY_LARGE_MIB', quick ? 32 : 256),
    latencyMs: number('UPLOAD_MANY_LATENCY_MS', 20),
    concurrency: number('UPLOAD_MANY_CONCURRENCY', 8),
    rounds: Math.max(1, number('UPLOAD_MANY_ROUNDS', quick ? 1 : 3)),
  };
}

/** Runs the three cases on both sets of files; resolves with the figures. */
export async function benchUploadMany({ quick = false } = {}) {
  const config = settings(quick);
  const root = mkdtempSync(join(tmpdir(), 'svc-upload-many-bench-'));
  try {
    const small = join(root, 'small');
    const large = join(root, 'large');
    writeFiles(small, config.smallFiles, config.smallKiB * KIB);
    writeFiles(large, config.largeFiles, config.largeMiB * MIB);
    const sets = [];
    const emulated = await emulatorServer(config.latencyMs);
    try {
      sets.push(await runSet('small', small, config, emulated));
    } finally {
      await emulated.close();
    }
    const sink = await sinkServer(config.latencyMs);
    try {
      sets.push(await runSet('large', large, config, sink));
    } finally {
      await sink.close();
    }
    return { config, sets, hashing: hashShare(sets) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function runSet(name, directory, config, server) {
  const cases = casesOf();
  const samples = Object.fromEntries(cases.map((kind) => [kind, []]));
  for (let round = 0; round < config.rounds; round++) {
    for (let offset = 0; offset < cases.length; offset++) {
      const kind = cases[(round + offset) % cases.length];
      console.error(`upload-many: ${name} files, round ${round + 1}/${config.rounds}, ${kind}…`);
      const roomId = await server.room();
      samples[kind].push(await runChild([kind, server.url, directory, String(roomId), String(config.concurrency)]));
    }
  }
  const results = Object.fromEntries(
    cases.map((kind) => [
      kind,
      {
        seconds: median(samples[kind].map((sample) => sample.seconds)),
        maxRssKiB: Math.max(...samples[kind].map((sample) => sample.maxRssKiB)),
        cpuSeconds: median(samples[kind].map((sample) => sample.cpuSeconds)),
        samples: samples[kind].map((sample) => sample.seconds),
      },
    ]),
  );
  const files = name === 'small' ? config.smallFiles : config.largeFiles;
  const bytes = files * (name === 'small' ? config.smallKiB * KIB : config.largeMiB * MIB);
  return { name, files, bytes, cases: results };
}

/** How many times faster `kind` ran than `other`: the median of the ratios within each round. */
function speedup(set, kind, other) {
  return median(set.cases[kind].samples.map((seconds, round) => set.cases[other].samples[round] / seconds));
}

/**
 * What hashing costs uploadMany, three ways: the CPU time (not wall time: the machine may be
 * shared) of SHA-256 over the set's bytes, in memory so the disk is not counted, over uploadMany's
 * wall time, and over uploadMany's own CPU time (user + system, its process); and the wall time
 * uploadMany with a manifest (walk, SHA-256, synced lines) takes over the same files as Blobs with none.
 */
function hashShare(sets) {
  const buffer = Buffer.alloc(8 * MIB, 7);
  return sets.map(({ name, bytes, cases }) => {
    const started = process.cpuUsage();
    const hash = createHash('sha256');
    for (let done = 0; done < bytes; done += buffer.length) hash.update(done + buffer.length <= bytes ? buffer : buffer.subarray(0, bytes - done));
    hash.digest();
    const { user, system } = process.cpuUsage(started);
    const seconds = (user + system) / 1e6;
    const withManifest = cases.uploadMany.samples;
    const manifestShare = median(withManifest.map((value, round) => (value - cases.uploadManyPlain.samples[round]) / value));
    // The hash runs on the main thread, in the read that sends the file: its share stays under 5 %
    // only while the upload takes at least 20 times the hashing, i.e. over a link slower than 5 % of
    // the hash rate (the floor short of hashing elsewhere, which needs a second read or a copy).
    const hashMiBPerSecond = bytes / MIB / seconds;
    return {
      name,
      seconds,
      share: seconds / cases.uploadMany.seconds,
      cpuShare: seconds / cases.uploadMany.cpuSeconds,
      manifestShare,
      hashMiBPerSecond,
    };
  });
}

function writeFiles(directory, count, size) {
  mkdirSync(directory, { recursive: true });
  const chunk = Buffer.alloc(Math.min(size, 8 * MIB));
  for (let index = 0; index < count; index++) {
    for (let byte = 0; byte < chunk.length; byte++) chunk[byte] = (byte * 131 + index) & 0xff;
    const fd = openSync(join(directory, `file-${String(index).padStart(5, '0')}.bin`), 'w');
    try {
      for (let written = 0; written < size; written += chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, size - written));
      // On disk before any case runs: the kernel's writeback of 2 GiB just written would otherwise
      // compete with the first cases (and a journal commit, as a manifest's synced write makes, may
      // wait for dirty data on ext4); the cases measure uploads, not the fixture's writing.
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** The emulator over HTTP with its latency fault; uploads up to 1 GiB. */
async function emulatorServer(latencyMs) {
  const { createEmulator } = await import('svc-sdk/testing');
  const { Client } = await import('svc-sdk');
  const emulator = createEmulator({ maxUploadBytes: 1024 * MIB });
  const server = await emulator.listen();
  const client = new Client({ apiKey: API_KEY, baseUrl: server.url });
  return {
    url: server.url,
    async room() {
      // Each case starts from an empty store: the last case's documents are not kept around.
      emulator.faults.latencyMs = 0;
      emulator.reset();
      const { id } = await client.rooms.create({ name: 'bench', room_type: 'company_investment' });
      emulator.faults.latencyMs = latencyMs;
      return id;
    },
    close: () => emulator.close(),
  };
}

/** A node:http server that answers every upload after `latencyMs`, once it has read and discarded the body. */
async function sinkServer(latencyMs) {
  let id = 0;
  const server = createServer((request, response) => {
    request.on('data', () => undefined);
    request.on('end', () => {
      setTimeout(() => {
        id += 1;
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: true, data: { id, original_filename: `file-${id}` } }));
      }, latencyMs);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    room: async () => 1,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}

function runChild(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`case ${args[0]} exited with ${code}`))));
  });
}

async function child(kind, url, directory, roomIdText, concurrencyText) {
  const roomId = Number(roomIdText);
  const concurrency = Number(concurrencyText);
  // The baseline's build (scripts/build-baseline.mjs) runs the same uploadMany case as this one's.
  const baseline = kind === 'baselineUploadMany';
  const { Client, fileFromPath } = await import(baseline ? 'svc-sdk-baseline' : 'svc-sdk');
  const client = new Client({ apiKey: API_KEY, baseUrl: url, timeout: 600_000 });
  const manifestDirectory = mkdtempSync(join(tmpdir(), 'svc-upload-many-manifest-'));
  const started = performance.now();
  let stored = 0;
  try {
    if (kind === 'uploadManyPlain') {
      // The same pool over Blobs (fileFromPath), with no manifest: nothing hashed, nothing written.
      const inputs = [];
      for (const name of readdirSync(directory).sort()) inputs.push({ file: await fileFromPath(join(directory, name)), filename: name });
      const result = await client.documents.uploadMany(roomId, inputs, { concurrency });
      if (result.failed.length || result.unknown.length) throw new Error(`uploadMany: ${result.failed.length} failed, ${result.unknown.length} unknown`);
      stored = result.uploaded.length;
    } else if (kind === 'uploadMany' || baseline) {
      const result = await client.documents.uploadMany(roomId, directory, { concurrency, manifest: join(manifestDirectory, 'manifest.jsonl') });
      if (result.failed.length || result.unknown.length) throw new Error(`uploadMany: ${result.failed.length} failed, ${result.unknown.length} unknown`);
      stored = result.uploaded.length;
    } else if (kind === 'sequential') {
      for (const name of readdirSync(directory).sort()) {
        await client.documents.upload(roomId, await fileFromPath(join(directory, name)));
        stored += 1;
      }
    } else {
      stored = await rawFetch(url, roomId, directory, concurrency);
    }
  } finally {
    rmSync(manifestDirectory, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  // CPU time (user + system, µs → s) tells where a case spends its effort even on a loaded machine.
  process.stdout.write(JSON.stringify({ seconds, stored, maxRssKiB: peakRssKiB(), cpuSeconds: (userCPUTime + systemCPUTime) / 1e6 }));
}

/** The same multipart bodies as the SDK's (a preamble, the file streamed, the closing boundary), `concurrency` at a time. */
async function rawFetch(url, roomId, directory, concurrency) {
  const { openAsBlob } = await import('node:fs');
  const names = readdirSync(directory).sort();
  let next = 0;
  let stored = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++];
      const boundary = `----bench-${Math.random().toString(16).slice(2)}`;
      const preamble = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      const closing = Buffer.from(`\r\n--${boundary}--\r\n`);
      const file = await openAsBlob(join(directory, name));
      const reader = file.stream().getReader();
      let stage = 0;
      const body = new ReadableStream({
        async pull(controller) {
          if (stage === 0) {
            stage = 1;
            return controller.enqueue(preamble);
          }
          const { done, value } = await reader.read();
          if (!done) return controller.enqueue(value);
          controller.enqueue(closing);
          controller.close();
        },
      });
      const response = await fetch(`${url}/api/v1/rooms/${roomId}/documents`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${API_KEY}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(preamble.length + file.size + closing.length),
        },
        body,
        duplex: 'half',
      });
      if (response.status !== 201) throw new Error(`raw fetch: ${response.status} ${await response.text()}`);
      await response.json();
      stored += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return stored;
}

function rate(set, kind) {
  return set.files / set.cases[kind].seconds;
}

function mb(kib) {
  return Math.round((kib * 1024) / 1e6);
}

/** The table of files/s, MB/s and peak RSS per case. */
export function renderUploadMany({ config, sets, hashing }) {
  const rows = [];
  for (const set of sets) {
    for (const kind of Object.keys(set.cases)) {
      const result = set.cases[kind];
      rows.push([
        `${set.files} × ${set.name === 'small' ? `${config.smallKiB} KiB` : `${config.largeMiB} MiB`}`,
        kind === 'uploadMany'
          ? `uploadMany (concurrency ${config.concurrency}), directory + manifest`
          : kind === 'uploadManyPlain'
            ? 'uploadMany, Blobs, no manifest (no hashing)'
            : kind === 'sequential'
              ? 'loop of documents.upload'
              : kind === 'rawFetch'
                ? `raw fetch (concurrency ${config.concurrency})`
                : `baseline ${baselineRef()}: uploadMany, directory + manifest`,
        rate(set, kind).toFixed(1),
        (set.bytes / MIB / result.seconds).toFixed(1),
        result.seconds.toFixed(2),
        result.cpuSeconds.toFixed(2),
        String(mb(result.maxRssKiB)),
      ]);
    }
  }
  const percent = (value) => `${(value * 100).toFixed(1)} %`;
  const share = hashing.map((entry) => `${entry.name} files ${percent(entry.share)} (${entry.seconds.toFixed(2)} s; ${percent(entry.cpuShare)} of its CPU time)`).join(', ');
  const manifest = hashing.map((entry) => `${entry.name} files ${percent(entry.manifestShare)}`).join(', ');
  return [
    table(['files', 'case', 'files/s', 'MiB/s', 'wall time (s)', 'CPU time (s)', 'peak RSS (MB)'], rows),
    '',
    `Medians of ${config.rounds} interleaved round${config.rounds === 1 ? '' : 's'}; added latency ${config.latencyMs} ms per answer; CPU time is the client process's (user + system, startup included).`,
    `CPU time of SHA-256 over every byte (uploadMany computes it while the file`,
    `streams) over uploadMany's wall time: ${share}. Wall time of uploadMany with a manifest over the same without (Blobs): ${manifest}.`,
    `${floorText(hashing)}`,
  ].join('\n');
}

/** The hash rate (the best of the sets' measurements, the least disturbed) and the link speed below which hashing is < 5 %. */
function hashFloor(hashing) {
  const rate = Math.max(...hashing.map((entry) => entry.hashMiBPerSecond));
  return { rate, link: 0.05 * rate };
}

/**
 * The floor of the hash's share: SHA-256 runs on the main thread at the rate measured here, so
 * it is under 5 % of an upload's time only over a link slower than 5 % of that rate.
 */
function floorText(hashing) {
  const { rate, link } = hashFloor(hashing);
  return `SHA-256 runs at ${(rate / 1024).toFixed(2)} GiB/s on this CPU (one core): hashing is under 5 % of an upload's time only over a link slower than ${link.toFixed(0)} MiB/s (${((link * MIB * 8) / 1e6).toFixed(0)} Mbit/s).`;
}

/** Rows for the targets table: [figure, target, measured, comparison, met]. */
export function summarizeUploadMany({ sets, hashing }) {
  const small = sets.find((set) => set.name === 'small');
  const large = sets.find((set) => set.name === 'large');
  const overSequential = speedup(small, 'uploadMany', 'sequential');
  const overRaw = sets.map((set) => speedup(set, 'uploadMany', 'rawFetch'));
  const peak = mb(large.cases.uploadMany.maxRssKiB);
  const maxShare = Math.max(...hashing.map((entry) => Math.max(entry.share, entry.manifestShare)));
  // With --baseline: that build's uploadMany over raw fetch, from the same rounds (an A/B of this build's figure).
  const baselineRows = large.cases.baselineUploadMany
    ? [
        [
          `baseline ${baselineRef()}: uploadMany over raw fetch (small, large), peak RSS (large)`,
          'for comparison',
          `${sets.map((set) => `${speedup(set, 'baselineUploadMany', 'rawFetch').toFixed(2)}×`).join(', ')}; ${mb(large.cases.baselineUploadMany.maxRssKiB)} MB`,
          '',
          '',
        ],
      ]
    : [];
  return [
    ...baselineRows,
    ['uploadMany files/s over a sequential loop (small files)', '≥ 6×', `${overSequential.toFixed(1)}×`, '', verdict(overSequential >= 6)],
    ['uploadMany throughput over raw fetch (small, large)', '≥ 0.9×', overRaw.map((ratio) => `${ratio.toFixed(2)}×`).join(', '), '', verdict(Math.min(...overRaw) >= 0.9)],
    [`uploadMany peak RSS, ${large.files} × ${large.bytes / large.files / MIB} MiB`, '< 150 MB', `${peak} MB`, '', verdict(peak < 150)],
    [
      'SHA-256 (and manifest) share of uploadMany time',
      '< 5 %',
      `${(maxShare * 100).toFixed(1)} %`,
      `floor: < 5 % only below a ${hashFloor(hashing).link.toFixed(0)} MiB/s link (SHA-256 at ${(hashFloor(hashing).rate / 1024).toFixed(2)} GiB/s, main thread)`,
      verdict(maxShare < 0.05),
    ],
  ];
}
