// A call through a proxy: the SDK's (its `proxy` option: undici's ProxyAgent and fetch, paired) against
// Node's own proxied fetch (HTTP_PROXY with NODE_USE_ENV_PROXY=1) of the same GET, in the same
// interleaved rounds, through one tinyproxy on loopback to the loopback server (its own process).
//   npm run build && npm run bench:deps && node bench/proxy.mjs [--quick]     (needs tinyproxy: apt-get install tinyproxy)
//   node scripts/build-baseline.mjs <ref> && BENCH_BASELINE=<ref> node bench/proxy.mjs      (that build too: before/after in one run)
//
// Every case goes through the same tinyproxy, on kept-alive connections (undici's pools: Node's
// EnvHttpProxyAgent, the SDK's ProxyAgent), to the same server, and every one reads and parses the body:
// - Node's proxied fetch, bare: a GET and `.json()`. It does less than any call of this service must:
//   no timeout, redirects followed blindly, no bound on the body, no envelope. Shown, not judged against.
// - Node's proxied fetch doing what every SDK call must (the fair baseline, which the bound is taken
//   against): the SDK's headers, `redirect: 'manual'` (the SDK follows or refuses redirects by its own
//   rules), a timeout that aborts it (the client's default, 60 s), the status checked, the body read
//   bounded by maxResponseBytes (64 MiB), parsed as JSON and unwrapped from its `{ success, data }`.
// - ky's floor: ky, the SDK's HTTP layer by design, with no retries and no timeout and the headers
//   beside its Request; the least a call through ky costs, so what the SDK adds over ky shows apart.
//   Most of that floor is Node's: ky makes a Request of its own with its signal, and fetch's Request
//   follows it (a call that may retry adds ky's clone, a third follower). Each follower holds a WeakRef
//   and a FinalizationRegistry cell, which young-generation collections keep alive, so they are promoted
//   and collected only by a full GC: a Request with a signal measured 10 µs CPU + 10 µs GC, one without
//   2.5 + 1.4. The fair baseline's timeout signal pays for one follower; the SDK's call pays for three.
//   bench/per-call-cpu.mjs measures the SDK's part without the network, on the CPU clock.
// - The same SDK call routed by Node's own proxy support (the SDK adds no dispatcher): the proxy
//   option's own cost, the SDK's per-call work being in both.
// - What the proxy itself adds, the hop: each side's proxied call less its own direct call to a twin
//   server (its port in NO_PROXY, so Node's fetch goes direct; the SDK with `proxy: false`, on undici's
//   fetch and a direct Agent, as its proxy option is on undici's fetch and a ProxyAgent). Judged: Node's
//   proxied fetch plus what the SDK's hop costs beyond Node's, over Node's proxied fetch (round by
//   round): the bound on the part the proxy support decides, the SDK's per-call work (the same with and
//   without a proxy: the cross-check) left out. On loopback a hop is tens of µs, within one round's
//   noise, so only the full run's medians are read from this.
// Noise: a second proxy-option client of this build is one more case (A/A). Two identical clients once
// differed by up to 1.5× ("the first made the slower"): not the first made but the case listed right after
// ky's floor, which the rotating order always ran after it, paying the floor's garbage (its Requests'
// signal followers) in its own time; swapping creation order left the slow one in that place, swapping
// places moved it. The rounds are in a fresh random order each (interleave's shuffle), so no case keeps a neighbour.
// bench/per-call-cpu.mjs measures a before/after on the CPU clock.
// Before the proxied rounds, this (parent) process, which Node does not proxy, measures the same SDK
// call against Node's unproxied fetch: the cross-check that the SDK's per-call cost is the same
// with and without a proxy in between.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ky from 'ky';
import { Client } from 'svc-sdk';
import { baselineName, importBaseline } from './lib/baseline.mjs';
import { runner } from './lib/runner.mjs';
import { startLoopbackServer } from './lib/spawn-server.mjs';
import { fixed, interleave, median, table, times, verdict } from './lib/stats.mjs';

const TARGET = 1.05;
const quick = process.argv.includes('--quick');
const freePort = () => new Promise((resolve) => { const server = createServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); }); });

const API_KEY = 'vdr_bench_key';
const TIMEOUT_MS = 60_000; // the client's default timeout
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024; // the client's default maxResponseBytes
const headers = { authorization: `Bearer ${API_KEY}`, accept: 'application/json' };
// The headers the SDK sends (its version's value does not change what they cost).
const sdkHeaders = { ...headers, 'user-agent': 'svc-sdk/0.0.0', 'x-svc-sdk-version': '0.0.0' };

/** Node's fetch of `url` doing what every call of the SDK must (see the header): the fair baseline. */
async function fairFetch(url) {
  const response = await fetch(url, { headers: sdkHeaders, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!response.ok) throw new Error(`status ${response.status}`);
  if (Number(response.headers.get('content-length')) > MAX_RESPONSE_BYTES) throw new Error('too large');
  const chunks = [];
  let size = 0;
  const reader = response.body.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > MAX_RESPONSE_BYTES) throw new Error('too large');
    chunks.push(chunk.value);
  }
  const body = JSON.parse(new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
  if (body.success !== true) throw new Error('not a success');
  return body.data;
}

/** ky with no retries and no timeout, the SDK's headers beside its Request (as the SDK sends them): ky's floor. */
const kyFloor = ky.create({
  retry: 0,
  timeout: false,
  fetch: (request) => fetch(request.url, { method: request.method, headers: sdkHeaders, signal: request.signal, redirect: 'manual' }),
});

/** Interleaved rounds of `calls` at 1 and 16 at once; per case its µs per call, and its samples (for ratios to any other case). */
async function measure(calls, baseline) {
  const results = [];
  for (const concurrency of [1, 16]) {
    const cases = Object.entries(calls).map(([name, call]) => ({ name, run: runner(call, concurrency) }));
    for (const { run } of cases) await run(200);
    const measured = await interleave(cases, { rounds: quick ? 10 : 40, operations: concurrency === 1 ? 50 : 160, baseline, shuffle: true });
    results.push({ concurrency, measured });
  }
  return results;
}

/** The median of the round-by-round ratios of two cases' samples. */
const ratioOf = (measured, name, over) => median(measured.get(name).samples.map((value, round) => value / measured.get(over).samples[round]));

if (!process.env.BENCH_PROXY) {
  // The cross-check, in this process (Node does not proxy it): the SDK's call against Node's fetch, direct.
  const direct = await startLoopbackServer();
  try {
    const client = new Client({ apiKey: API_KEY, baseUrl: direct.url });
    const url = `${direct.url}/api/v1/rooms`;
    const bare = "Node's fetch, bare (GET, .json())";
    const fair = "Node's fetch doing the SDK's work";
    const floor = "ky's floor";
    const sdk = 'svc-sdk GET';
    const calls = {
      [bare]: async () => (await (await fetch(url, { headers })).json()).data,
      [fair]: () => fairFetch(url),
      [floor]: async () => JSON.parse(await (await kyFloor(url)).text()).data,
      [sdk]: () => client.request({ method: 'GET', path: '/rooms' }),
    };
    const rows = [];
    for (const { concurrency, measured } of await measure(calls, bare)) {
      for (const [name, { micros }] of measured) {
        rows.push([concurrency, name, fixed(micros, 1), times(ratioOf(measured, name, bare)), times(ratioOf(measured, name, fair)), times(ratioOf(measured, name, floor))]);
      }
    }
    console.log('Without a proxy (the cross-check):\n');
    console.log(table(['at once', 'case', 'µs per call', 'vs bare fetch', "vs fetch doing the SDK's work", "vs ky's floor"], rows));
    console.log('');
  } finally {
    direct.stop();
  }

  // Node reads NODE_USE_ENV_PROXY when it starts: the measuring process is started with it, behind a tinyproxy started here.
  if (spawnSync('tinyproxy', ['-v']).status !== 0) {
    console.error('bench/proxy.mjs: skipped: apt-get install tinyproxy');
    process.exit(0);
  }
  // The twin server the proxied process reaches directly (NO_PROXY names its port): started here, before
  // that process, since Node reads NO_PROXY when it starts.
  const twin = await startLoopbackServer();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-proxy-'));
  const port = await freePort();
  writeFileSync(join(dir, 'tinyproxy.conf'), [`Port ${port}`, 'Listen 127.0.0.1', 'Allow 127.0.0.1', 'MaxClients 400', 'LogLevel Critical'].join('\n'));
  const proxy = spawn('tinyproxy', ['-d', '-c', join(dir, 'tinyproxy.conf')], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const env = { ...process.env, BENCH_PROXY: `http://127.0.0.1:${port}`, HTTP_PROXY: `http://127.0.0.1:${port}`, NODE_USE_ENV_PROXY: '1', BENCH_DIRECT: twin.url };
  for (const name of ['http_proxy', 'https_proxy', 'HTTPS_PROXY', 'NO_PROXY', 'no_proxy']) delete env[name];
  env.NO_PROXY = new URL(twin.url).host;
  const run = spawnSync(process.execPath, [new URL(import.meta.url).pathname, ...process.argv.slice(2)], { stdio: 'inherit', env });
  proxy.kill();
  twin.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(run.status ?? 1);
}

const server = await startLoopbackServer();
try {
  const options = { apiKey: API_KEY, baseUrl: server.url };
  const viaOption = new Client({ ...options, proxy: process.env.BENCH_PROXY });
  const again = new Client({ ...options, proxy: process.env.BENCH_PROXY }); // the A/A case: the same build, a client of its own
  const viaNode = new Client(options); // NODE_USE_ENV_PROXY: Node's fetch routes it, the SDK adds no dispatcher
  // The direct twins of the hop comparison: the SDK on undici's fetch with a direct Agent, Node's fetch by NO_PROXY.
  const direct = new Client({ apiKey: API_KEY, baseUrl: process.env.BENCH_DIRECT, proxy: false });
  const directUrl = `${process.env.BENCH_DIRECT}/api/v1/rooms`;
  const baseline = await importBaseline();
  const beforeOption = baseline && new baseline.Client({ ...options, proxy: process.env.BENCH_PROXY });
  const url = `${server.url}/api/v1/rooms`;
  const bare = "Node's own proxied fetch, bare (GET, .json())";
  const fair = "Node's own proxied fetch doing the SDK's work";
  const floor = "ky's floor, routed by Node";
  const option = 'svc-sdk GET, proxy option (undici ProxyAgent + its fetch)';
  const routedByNode = 'svc-sdk GET, routed by Node (HTTP_PROXY, NODE_USE_ENV_PROXY=1)';
  const fairDirect = "Node's fetch doing the SDK's work, direct (NO_PROXY)";
  const sdkDirect = 'svc-sdk GET, direct (proxy: false: undici fetch + Agent)';
  const calls = {
    [bare]: async () => (await (await fetch(url, { headers })).json()).data,
    [fair]: () => fairFetch(url),
    [floor]: async () => JSON.parse(await (await kyFloor(url)).text()).data,
    [option]: () => viaOption.request({ method: 'GET', path: '/rooms' }),
    [`A/A: ${option}, a second client`]: () => again.request({ method: 'GET', path: '/rooms' }),
    ...(beforeOption && { [baselineName(option)]: () => beforeOption.request({ method: 'GET', path: '/rooms' }) }),
    [routedByNode]: () => viaNode.request({ method: 'GET', path: '/rooms' }),
    [fairDirect]: () => fairFetch(directUrl),
    [sdkDirect]: () => direct.request({ method: 'GET', path: '/rooms' }),
  };
  const hops = [];
  const rows = [];
  for (const { concurrency, measured } of await measure(calls, fair)) {
    // The hop, round by round: each side's proxied µs less its direct µs, measured in the same round.
    const hopOf = (proxied, directly) => measured.get(proxied).samples.map((value, round) => value - measured.get(directly).samples[round]);
    const sdkHop = hopOf(option, sdkDirect);
    const nodeHop = hopOf(fair, fairDirect);
    const fairSamples = measured.get(fair).samples;
    const routeRatio = median(sdkHop.map((value, round) => (fairSamples[round] + value - nodeHop[round]) / fairSamples[round]));
    hops.push([concurrency, fixed(median(nodeHop), 1), fixed(median(sdkHop), 1), `${times(routeRatio)} ${verdict(routeRatio <= TARGET)}`]);
    for (const [name, { micros }] of measured) {
      const sdk = name.includes('svc-sdk');
      const overFair = ratioOf(measured, name, fair);
      const judged = sdk && name.includes('proxy option');
      const overRouted = judged ? ratioOf(measured, name, routedByNode) : undefined;
      rows.push([
        concurrency,
        name,
        fixed(micros, 1),
        times(ratioOf(measured, name, bare)),
        `${times(overFair)}${judged ? ` ${verdict(overFair <= TARGET)}` : ''}`,
        sdk ? times(ratioOf(measured, name, floor)) : '',
        judged ? `${times(overRouted)} ${verdict(overRouted <= TARGET)}` : '',
      ]);
    }
  }
  console.log('Through tinyproxy:\n');
  console.log(table(['at once', 'case', 'µs per call', 'vs bare proxied fetch', `vs proxied fetch doing the SDK's work (≤ ${TARGET}×)`, "vs ky's floor", `vs the SDK routed by Node (≤ ${TARGET}×)`], rows));
  console.log("\nWhat the proxy adds (the hop: a proxied call less the same side's direct call, in the same round):\n");
  console.log(table(['at once', "Node's fetch: µs the hop adds", 'svc-sdk proxy option: µs the hop adds', `Node's proxied fetch with the SDK's hop instead of its own, over Node's (≤ ${TARGET}×)`], hops));
} finally {
  server.stop();
}
