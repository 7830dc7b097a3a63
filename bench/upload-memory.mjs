// Peak memory of uploading a large file through the built package, one fresh process per case.
// `npm run bench:upload` (builds first); `-- --size <MiB>` for a quick run (default 1024 MiB).
// Each child uploads to a loopback node:http server in this process that discards the bytes, then
// reports its own peak RSS (KiB; bench/lib/peak-rss.mjs: Linux's VmHWM, as maxRSS counts this parent's RSS at spawn). The result replaces "## Upload memory" in BENCHMARKS.md.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { peakRssKiB } from './lib/peak-rss.mjs';

const MIB = 1024 * 1024;
const CASES = {
  'floor: a 1 KiB upload (loads the SDK and fetch)': 'tiny',
  'fileFromPath': 'fileFromPath',
  'fs.createReadStream (Node Readable)': 'readStream',
  'fs.readFileSync → Uint8Array (buffered baseline)': 'buffered',
  'reference: bare fetch of the file as a stream, no SDK': 'rawFetch',
};
const STREAMED = new Set(['fileFromPath', 'readStream']);
const TARGET_MB = 100;

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], process.argv[5]);
else await main();

async function child(kind, url, path) {
  const { createReadStream } = await import('node:fs');
  if (kind === 'rawFetch') {
    // What Node's fetch costs by itself: the file as a web stream (fs's 64 KiB chunks), no multipart.
    const { Readable } = await import('node:stream');
    const body = Readable.toWeb(createReadStream(path));
    const response = await fetch(`${url}/api/v1/rooms/1/documents`, { method: 'POST', body, duplex: 'half', redirect: 'error' });
    const uploaded = await response.json();
    process.stdout.write(JSON.stringify({ maxRssKiB: peakRssKiB(), uploaded }));
    return;
  }
  const { Client, fileFromPath } = await import('svc-sdk');
  const client = new Client({ apiKey: 'vdr_bench_key', baseUrl: url, timeout: 600_000 });
  let uploaded;
  {
    const file =
      kind === 'tiny' ? new Uint8Array(1024)
      : kind === 'fileFromPath' ? await fileFromPath(path)
      : kind === 'readStream' ? createReadStream(path)
      : new Uint8Array(readFileSync(path).buffer);
    uploaded = await client.documents.upload(1, file, { filename: 'big.bin' });
  }
  process.stdout.write(JSON.stringify({ maxRssKiB: peakRssKiB(), uploaded }));
}

function runChild(kind, url, path) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', kind, url, path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`case ${kind} exited with ${code}`));
      resolve({ ...JSON.parse(out), seconds: (performance.now() - started) / 1000 });
    });
  });
}

function sizeArgument() {
  const index = process.argv.indexOf('--size');
  if (index < 0) return 1024;
  const size = Number(process.argv[index + 1]);
  if (!Number.isInteger(size) || size <= 0) throw new Error('--size takes a whole number of MiB, such as --size 256');
  return size;
}

function writeTestFile(path, mib) {
  // Written in 8 MiB chunks of varied bytes, so the file never sits whole in this process's memory.
  const chunk = Buffer.alloc(8 * MIB);
  for (let index = 0; index < chunk.length; index++) chunk[index] = (index * 131 + 7) & 0xff;
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < mib * MIB; written += chunk.length) {
      writeSync(fd, chunk, 0, Math.min(chunk.length, mib * MIB - written));
    }
  } finally {
    closeSync(fd);
  }
}

async function main() {
  const mib = sizeArgument();
  const path = join(tmpdir(), `svc-sdk-upload-bench-${process.pid}.bin`);
  let received;
  const server = createServer((request, response) => {
    let bytes = 0;
    request.on('data', (chunk) => (bytes += chunk.length));
    request.on('end', () => {
      received = bytes;
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: true, data: { id: 1, original_filename: 'big.bin' } }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const rows = [];
  try {
    console.error(`upload-memory: writing ${mib} MiB to ${path}…`);
    writeTestFile(path, mib);
    for (const [name, kind] of Object.entries(CASES)) {
      received = 0;
      console.error(`upload-memory: ${name}…`);
      const result = await runChild(kind, url, path);
      if (kind !== 'tiny' && received < mib * MIB) throw new Error(`case ${name}: the server received ${received} bytes`);
      rows.push({ name, kind, peakRssMB: Math.round((result.maxRssKiB * 1024) / 1e6), seconds: Number(result.seconds.toFixed(1)), received });
    }
  } finally {
    rmSync(path, { force: true });
    server.close();
  }

  const table = [
    '| case | peak RSS (MB) | wall time (s) |',
    '|---|---:|---:|',
    ...rows.map((row) => `| ${row.name} | ${row.peakRssMB} | ${row.kind === 'tiny' ? '—' : row.seconds} |`),
  ].join('\n');
  const streamedOk = rows.filter((row) => STREAMED.has(row.kind)).every((row) => row.peakRssMB < TARGET_MB);
  console.log(table);
  console.log(JSON.stringify({ bench: 'upload-memory', sizeMiB: mib, targetMB: TARGET_MB, streamedUnderTarget: streamedOk, rows }));

  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`;
  const floor = rows.find((row) => row.kind === 'tiny')?.peakRssMB;
  const section = [
    '## Upload memory',
    '',
    `Peak RSS (VmHWM on Linux: its own, not the spawning process's) of a fresh Node process uploading a ${mib} MiB file with`,
    '`client.documents.upload` through the built package to a loopback server (in the parent process) that discards the bytes.',
    `Target for the streamed inputs: under ${TARGET_MB} MB (${streamedOk ? 'met' : 'NOT met'}).`,
    '',
    table,
    '',
    `How to read it: the floor (${floor} MB) is Node itself, its fetch (undici) and the SDK, loaded; streaming adds a fixed`,
    'amount that does not grow with the file (compare `-- --size 256`): optimized code for the hot path, and spent chunks',
    'that V8 frees at its next young-generation collection. Those collections are paced by the JavaScript objects allocated,',
    "not by bytes, so the SDK hands Node's fetch chunks of at most 8 KiB (views, never copies): with fs's 64 KiB chunks the",
    "same uploads peaked at 118-131 MB, with 16 KiB at 96. The reference row is Node's fetch alone, with 64 KiB chunks.",
    "Uploads also refuse redirects: following one makes undici keep every chunk sent, to replay the body",
    '(nodejs/undici#4058): 1.1 GB for a 1 GiB file. The buffered baseline holds the file once: the SDK sends views of the',
    "caller's bytes, no copy (copying them into a Blob made it 3.3 GB).",
    '',
    `- Machine: ${machine}; Node ${process.version}; ${new Date().toISOString().slice(0, 10)}`,
    `- Command: \`npm run bench:upload${mib === 1024 ? '' : ` -- --size ${mib}`}\``,
  ].join('\n');
  const file = new URL('../BENCHMARKS.md', import.meta.url);
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let next;
  if (/^## Upload memory$/m.test(current)) next = current.replace(/^## Upload memory\n[\s\S]*?(?=\n## |$(?![\s\S]))/m, `${section}\n`);
  else if (current) next = `${current.trimEnd()}\n\n${section}\n`;
  else next = `# Benchmarks\n\n${section}\n`;
  writeFileSync(file, next);
  console.error('upload-memory: wrote the "Upload memory" section of BENCHMARKS.md');
  // A missed target is reported in the table and the JSON line, not by the exit code: bench/run.mjs
  // keeps this section only when the run itself succeeded.
}
