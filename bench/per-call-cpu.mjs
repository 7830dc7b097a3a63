// The SDK's own CPU per call, with no network: `client.request` GET answered by a canned fetch (a new
// Request of what it is handed, then a Response of the loopback server's JSON), against the same fetch
// called bare and through ky's floor, on this process's CPU clock (other processes on a shared machine
// move it less than wall time). What is left over ky's floor is the SDK's per-call work: its checks,
// its call state, its retry policy (ky's normalizing of it, and its clone of the Request for a retry),
// its timeout, the bounded read and the envelope.
//   npm run build && node bench/per-call-cpu.mjs [--quick]     (BENCH_BASELINE=<ref> after scripts/build-baseline.mjs: that build too)
import ky from 'ky';
import { Client } from 'svc-sdk';
import { baselineName, importBaseline } from './lib/baseline.mjs';
import { cpuClock, fixed, interleave, table, times } from './lib/stats.mjs';

const quick = process.argv.includes('--quick');
const body = JSON.stringify({ success: true, data: { id: 1, name: 'Bench room', room_type: 'company_investment' } });
const answer = { status: 200, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } };
// Node's fetch makes a Request of its arguments (a signal's follower included) before it sends: so does this one.
const canned = async (input, init) => {
  void new Request(input, init);
  return new Response(body, answer);
};
const url = 'http://127.0.0.1:9/api/v1/rooms';
const headers = { authorization: 'Bearer vdr_bench_key', accept: 'application/json', 'user-agent': 'svc-sdk/0.0.0', 'x-svc-sdk-version': '0.0.0' };
const kyFloor = ky.create({ retry: 0, timeout: false, fetch: (request) => canned(request.url, { method: request.method, headers, signal: request.signal, redirect: 'manual' }) });
// The canned fetch as the global one, so the clients take their default path (a `fetch` option would get a Headers of its own per attempt).
globalThis.fetch = canned;
const options = { apiKey: 'vdr_bench_key', baseUrl: 'http://127.0.0.1:9' };
const client = new Client(options);
const baseline = await importBaseline();
const before = baseline && new baseline.Client(options);

const bare = 'the canned fetch, bare (.json())';
const floor = "ky's floor (no retries, no timeout, headers beside)";
const sdk = 'svc-sdk GET (client.request)';
const calls = {
  [bare]: async () => (await (await canned(url, { headers })).json()).data,
  [floor]: async () => JSON.parse(await (await kyFloor(url)).text()).data,
  [sdk]: () => client.request({ method: 'GET', path: '/rooms' }),
  ...(before && { [baselineName(sdk)]: () => before.request({ method: 'GET', path: '/rooms' }) }),
};
const cases = Object.entries(calls).map(([name, call]) => ({
  name,
  run: async (operations) => {
    for (let index = 0; index < operations; index++) await call();
  },
}));
for (const { run } of cases) await run(3000);
const measured = await interleave(cases, { rounds: quick ? 10 : 40, operations: 2000, baseline: floor, clock: cpuClock });
const sdkSamples = measured.get(sdk).samples;
const rows = [...measured].map(([name, { micros, ratio, samples }]) => [
  name,
  fixed(micros, 1),
  times(ratio),
  name.startsWith('baseline') ? times([...samples].map((value, round) => sdkSamples[round] / value).sort((a, b) => a - b)[samples.length >> 1]) : '',
]);
console.log(table(['case', 'CPU µs per call', "vs ky's floor", 'this build over it'], rows));
