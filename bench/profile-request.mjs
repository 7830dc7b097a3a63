// Where the time of a request goes: runs `client.rooms.create` (or raw fetch, `--raw`) against the
// loopback server under `node --cpu-prof`, then prints self time by package and the hottest functions.
//   npm run build && node bench/profile-request.mjs [--raw] [--concurrency 32] [--requests 20000]
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
} else {
  const server = await startLoopbackServer();
  const directory = mkdtempSync(join(tmpdir(), 'svc-sdk-profile-'));
  try {
    const result = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', directory, fileURLToPath(import.meta.url)], {
      stdio: 'inherit',
      env: {
        ...process.env,
        BENCH_PROFILE_CHILD: '1',
        BENCH_URL: server.url,
        BENCH_RAW: process.argv.includes('--raw') ? '1' : '',
        BENCH_CONCURRENCY: argument('--concurrency', '32'),
        BENCH_REQUESTS: argument('--requests', '20000'),
      },
    });
    if (result.status !== 0) throw new Error('the profiled process failed');
    const file = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'));
    const requests = Number(argument('--requests', '20000'));
    console.log(summarize(JSON.parse(readFileSync(join(directory, file), 'utf8')), requests));
  } finally {
    server.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Self time by package (svc-sdk, zod, undici, node internals, GC…) and the 25 hottest functions. */
function summarize(profile, requests) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byPackage = new Map();
  const byFunction = new Map();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const { callFrame } = nodes.get(id);
    const time = profile.timeDeltas[index] ?? 0;
    const url = callFrame.url;
    const where = url.includes('/zod/') ? 'zod'
      : url.includes('undici') ? 'undici (fetch)'
      : url.includes('/dist/') ? 'svc-sdk'
      : url.startsWith('node:') ? 'node internals'
      : url || callFrame.functionName;
    const name = `${callFrame.functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${callFrame.lineNumber + 1}`;
    byPackage.set(where, (byPackage.get(where) ?? 0) + time);
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
    total += time;
  });
  const percent = (time) => `${((100 * time) / total).toFixed(1).padStart(5)} %`;
  const top = (map, count) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count).map(([key, time]) => `${percent(time)}  ${key}`);
  const busy = total - (byPackage.get('(idle)') ?? 0);
  const head = `CPU busy: ${(busy / 1000).toFixed(0)} ms for ${requests} requests, ${(busy / requests).toFixed(1)} µs per request (idle excluded)`;
  return [head, '', 'Self time by package:', ...top(byPackage, 10), '', 'Hottest functions (self time):', ...top(byFunction, Number(process.env.TOP ?? 25))].join('\n');
}
