// CPU time per upload, the emulator's (this process) and the client's (a child), separately: robust
// to a shared machine where wall times are not. Cases as in upload-many.mjs (its --child mode).
//   npm run build && node bench/cpu-per-upload.mjs [cases…]   (default: rawFetch uploadMany uploadManyPlain)
// A/B against another build: UPLOAD_CPU_BASE=<a package directory with dist/ and bench/upload-many.mjs>,
// then a case `base:uploadMany` runs that build's client, `uploadMany@base` against that build's emulator.
// UPLOAD_CPU_NODE_OPTIONS: flags for the client's node (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof);
// UPLOAD_CPU_EXEC: what runs the client instead of this node (a script wrapping it with strace -c, say).
// UPLOAD_CPU_FILES (500) of UPLOAD_CPU_KIB (64) KiB, UPLOAD_CPU_ROUNDS (3), UPLOAD_CPU_CONCURRENCY (8),
// UPLOAD_CPU_LATENCY_MS (20). A child's figure has its startup subtracted (a child uploading nothing).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib/stats.mjs';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const files = env('UPLOAD_CPU_FILES', 500);
const kib = env('UPLOAD_CPU_KIB', 64);
const rounds = env('UPLOAD_CPU_ROUNDS', 3);
const concurrency = env('UPLOAD_CPU_CONCURRENCY', 8);
const latencyMs = env('UPLOAD_CPU_LATENCY_MS', 20);
const cases = process.argv.slice(2).length ? process.argv.slice(2) : ['rawFetch', 'uploadMany', 'uploadManyPlain'];
const script = fileURLToPath(new URL('./upload-many.mjs', import.meta.url));
const base = process.env.UPLOAD_CPU_BASE;

const root = mkdtempSync(join(tmpdir(), 'svc-upload-cpu-'));
const directory = join(root, 'files');
const empty = join(root, 'empty');
mkdirSync(directory);
mkdirSync(empty);
for (let index = 0; index < files; index++) {
  writeFileSync(join(directory, `file-${String(index).padStart(5, '0')}.bin`), Buffer.alloc(kib * 1024, index & 0xff));
}

const { Client } = await import('svc-sdk');
async function serve(module) {
  const { createEmulator } = await import(module);
  const emulator = createEmulator({ maxUploadBytes: 1024 * 1024 * 1024 });
  const server = await emulator.listen();
  return { emulator, server, client: new Client({ apiKey: 'vdr_bench_cpu', baseUrl: server.url }) };
}
const servers = { own: await serve('svc-sdk/testing') };
if (base) servers.base = await serve(join(base, 'dist/testing.js'));

function runChild(args) {
  const [build, kind] = args[0].includes(':') ? args[0].split(':') : ['own', args[0]];
  const from = build === 'base' ? join(base, 'bench/upload-many.mjs') : script;
  return new Promise((resolve, reject) => {
    const proc = spawn(process.env.UPLOAD_CPU_EXEC ?? process.execPath, [...(process.env.UPLOAD_CPU_NODE_OPTIONS ?? '').split(' ').filter(Boolean), from, '--child', kind, ...args.slice(1)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${args[0]} exited with ${code}`))));
  });
}

async function run(name, from) {
  const [kind, at = 'own'] = name.split('@');
  const { emulator, server, client } = servers[at];
  emulator.faults.latencyMs = 0;
  emulator.reset();
  const { id } = await client.rooms.create({ name: 'bench', room_type: 'company_investment' });
  emulator.faults.latencyMs = latencyMs;
  const started = process.cpuUsage();
  const result = await runChild([kind, server.url, from, String(id), String(concurrency)]);
  const { user, system } = process.cpuUsage(started);
  return { server: (user + system) / 1e3, client: result.cpuSeconds * 1e3, seconds: result.seconds };
}

const samples = Object.fromEntries(cases.map((kind) => [kind, []]));
const startup = Object.fromEntries(cases.map((kind) => [kind, []]));
for (let round = 0; round < rounds; round++) {
  for (let offset = 0; offset < cases.length; offset++) {
    const kind = cases[(round + offset) % cases.length];
    startup[kind].push((await run(kind, empty)).client);
    samples[kind].push(await run(kind, directory));
  }
}
for (const kind of cases) {
  const base = median(startup[kind]);
  const server = samples[kind].map((sample) => sample.server / files);
  const own = samples[kind].map((sample) => (sample.client - base) / files);
  const range = (values) => `${median(values).toFixed(3)} ms [${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}]`;
  console.log(`${kind.padEnd(16)} server CPU/upload ${range(server)}   client CPU/upload ${range(own)}   wall ${median(samples[kind].map((s) => s.seconds)).toFixed(2)} s`);
}
for (const { emulator } of Object.values(servers)) await emulator.close();
rmSync(root, { recursive: true, force: true });
