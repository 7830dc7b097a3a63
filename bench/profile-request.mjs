// Where the time of a request goes: runs `client.rooms.create` (or raw fetch, `--raw`) against the
// loopback server under `node --cpu-prof`, then prints self time by package and the hottest functions.
//   npm run build && npm run bench:deps && node bench/profile-request.mjs [--raw] [--concurrency 32] [--requests 20000]
// `bench/run.mjs` uses `profileRequests` for the "where the time goes" table of BENCHMARKS.md.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLoopbackServer } from './lib/spawn-server.mjs';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : process.argv[index + 1];
};

if (process.env.BENCH_PROFILE_CHILD) {
  // The profiled process: only the calls, nothing else.
  const { Client } = await import('svc-sdk');
  const url = process.env.BENCH_URL;
  const params = { name: 'Bench room', room_type: 'company_investment' };
  const client = new Client({ apiKey: 'vdr_bench_key', baseUrl: url });
  const raw = async () =>
    (await fetch(`${url}/api/v1/rooms`, {
      method: 'POST',
      headers: { authorization: 'Bearer vdr_bench_key', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(params),
    })).json();
  const call = process.env.BENCH_RAW ? raw : () => client.rooms.create(params);
  const requests = Number(process.env.BENCH_REQUESTS);
  let next = 0;
  const worker = async () => {
    while (next++ < requests) await call();
  };
  await Promise.all(Array.from({ length: Number(process.env.BENCH_CONCURRENCY) }, worker));
}

/**
 * Profiles `requests` calls (`raw` fetch or `rooms.create`), `concurrency` at a time, in a fresh
 * process; returns CPU µs per request (idle excluded), and by where it was spent and by function.
 */
export async function profileRequests({ raw = false, concurrency = 32, requests = 20000 } = {}) {
  const server = await startLoopbackServer();
  const directory = mkdtempSync(join(tmpdir(), 'svc-sdk-profile-'));
  try {
    const result = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', directory, fileURLToPath(import.meta.url)], {
      stdio: 'inherit',
      env: {
        ...process.env,
        BENCH_PROFILE_CHILD: '1',
        BENCH_URL: server.url,
        BENCH_RAW: raw ? '1' : '',
        BENCH_CONCURRENCY: String(concurrency),
        BENCH_REQUESTS: String(requests),
      },
    });
    if (result.status !== 0) throw new Error('the profiled process failed');
    const file = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'));
    return attribute(JSON.parse(readFileSync(join(directory, file), 'utf8')), requests);
  } finally {
    server.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * The module each line of a built chunk comes from: esbuild heads each module's code in an
 * unminified bundle with a `// path` comment, so time spent in the SDK's chunk can be split into
 * ky, zod and the SDK's own code.
 */
const chunkModules = new Map();
function moduleAt(url, line) {
  if (!chunkModules.has(url)) {
    const markers = [];
    try {
      readFileSync(fileURLToPath(url), 'utf8').split('\n').forEach((text, index) => {
        const marker = /^\/\/ ((?:node_modules|src)\/\S+)$/.exec(text);
        if (marker) markers.push([index, marker[1]]);
      });
    } catch {
      // Not a file: attributed to the chunk as a whole.
    }
    chunkModules.set(url, markers);
  }
  let found;
  for (const [start, path] of chunkModules.get(url)) if (start <= line) found = path;
  return found;
}

/** Where a sample's time goes: a package, the SDK's own code, Node's fetch (undici), Node, GC… */
function placeOf({ url, functionName, lineNumber }) {
  if (url.includes('/dist/')) {
    const path = moduleAt(url, lineNumber) ?? '';
    return path.includes('node_modules/ky/') ? 'ky' : path.includes('node_modules/zod/') ? 'zod' : 'svc-sdk (its own code)';
  }
  if (url.includes('/zod/')) return 'zod';
  if (url.includes('undici')) return "undici (Node's fetch)";
  if (url.startsWith('node:')) return 'Node internals';
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(idle)') return 'idle';
  return 'native (parse, writev, microtasks, …)';
}

function attribute(profile, requests) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byPlace = new Map();
  const byFunction = new Map();
  profile.samples.forEach((id, index) => {
    const { callFrame } = nodes.get(id);
    const time = profile.timeDeltas[index] ?? 0;
    const place = placeOf(callFrame);
    const name = `${callFrame.functionName || '(anonymous)'} ${callFrame.url.split('/').slice(-2).join('/')}:${callFrame.lineNumber + 1}`;
    byPlace.set(place, (byPlace.get(place) ?? 0) + time);
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
  });
  byPlace.delete('idle');
  const perRequest = (map) => new Map([...map].map(([key, time]) => [key, time / requests]).sort((a, b) => b[1] - a[1]));
  const places = perRequest(byPlace);
  return { microsPerRequest: [...places.values()].reduce((sum, time) => sum + time, 0), places, functions: perRequest(byFunction) };
}

function render({ microsPerRequest, places, functions }, requests) {
  const line = ([key, micros]) => `${micros.toFixed(1).padStart(7)} µs  ${key}`;
  return [
    `CPU busy: ${microsPerRequest.toFixed(1)} µs per request over ${requests} requests (idle excluded)`,
    '',
    'Self time per request, by where it is spent:',
    ...[...places].map(line),
    '',
    'Hottest functions (self time per request):',
    ...[...functions].filter(([key]) => !key.startsWith('(idle)')).slice(0, 25).map(line),
  ].join('\n');
}

// Run as a script (after the declarations above: the child branch is at the top on purpose, it only imports).
if (!process.env.BENCH_PROFILE_CHILD && import.meta.url === `file://${process.argv[1]}`) {
  const requests = Number(argument('--requests', '20000'));
  const profile = await profileRequests({
    raw: process.argv.includes('--raw'),
    concurrency: Number(argument('--concurrency', '32')),
    requests,
  });
  console.log(render(profile, requests));
}
