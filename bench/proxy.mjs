// A call through a proxy: the SDK's (its `proxy` option: undici's ProxyAgent and fetch, paired) against
// Node's own proxied fetch (HTTP_PROXY with NODE_USE_ENV_PROXY=1) of the same GET, in the same
// interleaved rounds, through one tinyproxy on loopback to the loopback server (its own process).
//   npm run build && npm run bench:deps && node bench/proxy.mjs [--quick]     (needs tinyproxy: apt-get install tinyproxy)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'svc-sdk';
import { runner } from './lib/runner.mjs';
import { startLoopbackServer } from './lib/spawn-server.mjs';
import { fixed, interleave, median, table, times, verdict } from './lib/stats.mjs';

const TARGET = 1.05;
const quick = process.argv.includes('--quick');
const freePort = () => new Promise((resolve) => { const server = createServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); }); });

if (!process.env.BENCH_PROXY) {
  // Node reads NODE_USE_ENV_PROXY when it starts: the measuring process is started with it, behind a tinyproxy started here.
  if (spawnSync('tinyproxy', ['-v']).status !== 0) {
    console.error('bench/proxy.mjs: skipped: apt-get install tinyproxy');
    process.exit(0);
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-proxy-'));
  const port = await freePort();
  writeFileSync(join(dir, 'tinyproxy.conf'), [`Port ${port}`, 'Listen 127.0.0.1', 'Allow 127.0.0.1', 'MaxClients 100', 'LogLevel Critical'].join('\n'));
  const proxy = spawn('tinyproxy', ['-d', '-c', join(dir, 'tinyproxy.conf')], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const env = { ...process.env, BENCH_PROXY: `http://127.0.0.1:${port}`, HTTP_PROXY: `http://127.0.0.1:${port}`, NODE_USE_ENV_PROXY: '1' };
  for (const name of ['http_proxy', 'https_proxy', 'HTTPS_PROXY', 'NO_PROXY', 'no_proxy']) delete env[name];
  const run = spawnSync(process.execPath, [new URL(import.meta.url).pathname, ...process.argv.slice(2)], { stdio: 'inherit', env });
  proxy.kill();
  rmSync(dir, { recursive: true, force: true });
  process.exit(run.status ?? 1);
}

const server = await startLoopbackServer();
try {
  const options = { apiKey: 'vdr_bench_key', baseUrl: server.url };
  const viaOption = new Client({ ...options, proxy: process.env.BENCH_PROXY });
  const viaNode = new Client(options); // NODE_USE_ENV_PROXY: Node's fetch routes it, the SDK adds no dispatcher
  const url = `${server.url}/api/v1/rooms`;
  const headers = { authorization: 'Bearer vdr_bench_key', accept: 'application/json' };
  const calls = {
    "Node's own proxied fetch (HTTP_PROXY, NODE_USE_ENV_PROXY=1)": async () => (await (await fetch(url, { headers })).json()).data,
    'svc-sdk GET, proxy option (undici ProxyAgent + its fetch)': () => viaOption.request({ method: 'GET', path: '/rooms' }),
    'svc-sdk GET, routed by Node (HTTP_PROXY, NODE_USE_ENV_PROXY=1)': () => viaNode.request({ method: 'GET', path: '/rooms' }),
    // Where a difference comes from: Node's fetch of the request the SDK sends (its headers, redirect mode and signal).
    "Node's own proxied fetch of the SDK's request (User-Agent, redirect: 'manual', a signal)": async () =>
      (await (await fetch(url, { headers: { ...headers, 'user-agent': 'svc-sdk/0.0.0', 'x-svc-sdk-version': '0.0.0' }, redirect: 'manual', signal: new AbortController().signal })).json()).data,
  };
  const baseline = "Node's own proxied fetch (HTTP_PROXY, NODE_USE_ENV_PROXY=1)";
  // What the proxy option itself costs: the same SDK call, routed by Node's fetch instead, in the same rounds. The SDK's
  // own per-call work (the same with no proxy: BENCHMARKS.md, rooms.create vs raw fetch) is in both, so it cancels out.
  const routedByNode = 'svc-sdk GET, routed by Node (HTTP_PROXY, NODE_USE_ENV_PROXY=1)';
  const rows = [];
  for (const concurrency of [1, 16]) {
    const cases = Object.entries(calls).map(([name, call]) => ({ name, run: runner(call, concurrency) }));
    for (const { run } of cases) await run(200);
    const measured = await interleave(cases, { rounds: quick ? 10 : 40, operations: concurrency === 1 ? 50 : 160, baseline });
    const routed = measured.get(routedByNode).samples;
    for (const [name, { micros, ratio, samples }] of measured) {
      const option = name.includes('proxy option');
      const overRouted = option ? median(samples.map((value, round) => value / routed[round])) : undefined;
      rows.push([concurrency, name, fixed(micros, 1), times(ratio), option ? verdict(ratio <= TARGET) : '', option ? `${times(overRouted)} ${verdict(overRouted <= TARGET)}` : '']);
    }
  }
  console.log(table(['at once', 'case', 'µs per call', "vs Node's proxied fetch", `target ≤ ${TARGET}×`, `vs the SDK routed by Node (≤ ${TARGET}×)`], rows));
} finally {
  server.stop();
}
