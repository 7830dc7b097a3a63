// Per-request overhead on loopback, the server in its own process: `client.rooms.create` against a
// raw fetch of the same request (Bearer header, JSON body, JSON parse), ky's defaults and openai's
// client doing a comparable POST, sequentially and 32 at a time.
import ky from 'ky';
import OpenAI from 'openai';
import { Client } from 'svc-sdk';
import { fixed, interleave, table, times, verdict } from './lib/stats.mjs';
import { startLoopbackServer } from './lib/spawn-server.mjs';
import { profileRequests } from './profile-request.mjs';
import { runner } from './lib/runner.mjs';
import { baselineName, importBaseline } from './lib/baseline.mjs';

const API_KEY = 'vdr_bench_key';
const params = { name: 'Bench room', room_type: 'company_investment' };
const TARGET = 1.15;
const BESIDE = 'bodyBeside';

export async function benchHttpOverhead({ quick = false } = {}) {
  const server = await startLoopbackServer();
  const results = [];
  try {
    const url = `${server.url}/api/v1/rooms`;
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', accept: 'application/json' };
    const sdkHeaders = { 'user-agent': 'svc-sdk/0.0.0', 'x-svc-sdk-version': '0.0.0', ...headers };
    const client = new Client({ apiKey: API_KEY, baseUrl: server.url });
    const kyClient = ky.create({ prefix: `${server.url}/api/v1`, headers: { authorization: `Bearer ${API_KEY}` } });
    const kyBeside = ky.create({
      prefix: `${server.url}/api/v1`,
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      // ky hands its fetch the options it does not know: the body travels as one of them.
      fetch: (request, init) =>
        fetch(request.url, { method: request.method, headers: request.headers, body: init[BESIDE], signal: request.signal }),
    });
    const openai = new OpenAI({ apiKey: API_KEY, baseURL: `${server.url}/api/v1` });
    const baseline = await importBaseline();
    const baselineClient = baseline && new baseline.Client({ apiKey: API_KEY, baseUrl: server.url });
    const calls = {
      'raw fetch': async () => {
        const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(params) });
        if (!response.ok) throw new Error(`status ${response.status}`);
        return (await response.json()).data;
      },
      'svc-sdk rooms.create': () => client.rooms.create(params),
      ...(baselineClient && { [baselineName('svc-sdk rooms.create')]: () => baselineClient.rooms.create(params) }),
      'openai client.post': () => openai.post('/rooms', { body: params }),
      'ky defaults': () => kyClient.post('rooms', { json: params }).json(),
      // The best ky can do for this call: no clone for a retry, no timer.
      'ky, retry: 0, timeout: false': () => kyClient.post('rooms', { json: params, retry: 0, timeout: false }).json(),
      // ky's floor: as above, and the body kept out of ky's Request and handed to fetch beside it, as
      // the SDK does; what remains is ky's Request, AbortController and option handling per call.
      'ky floor: retry: 0, timeout: false, body beside the Request': async () =>
        JSON.parse(await (await kyBeside.post('rooms', { [BESIDE]: JSON.stringify(params), retry: 0, timeout: false })).text()).data,
      'raw fetch of a new Request (ky builds one per call)': async () =>
        (await (await fetch(new Request(url, { method: 'POST', headers, body: JSON.stringify(params) }))).json()).data,
      // What Node's fetch itself costs for the request the SDK sends: its two extra headers, the
      // redirect mode it follows GET redirects with, and the signal its timeout aborts.
      "raw fetch of the SDK's request (User-Agent, x-svc-sdk-version, redirect: 'manual', a signal)": async () => {
        const response = await fetch(url, { method: 'POST', headers: sdkHeaders, body: JSON.stringify(params), redirect: 'manual', signal: new AbortController().signal });
        return (await response.json()).data;
      },
    };
    for (const concurrency of [1, 32]) {
      const cases = Object.entries(calls).map(([name, call]) => ({ name, run: runner(call, concurrency) }));
      for (const { run } of cases) await run(300); // open the connections, warm the JIT
      const measured = await interleave(cases, {
        // Many short samples: a case and the baseline run milliseconds apart, so their ratio holds
        // even while other work comes and goes on the machine.
        rounds: quick ? 12 : 60,
        operations: concurrency === 1 ? 60 : 200,
        baseline: 'raw fetch',
      });
      for (const [name, { micros, ratio }] of measured) results.push({ concurrency, name, micros, ratio });
    }
  } finally {
    server.stop();
  }
  // Where the time goes: CPU profiles of the SDK and of raw fetch, each in its own process.
  const requests = quick ? 6000 : 20000;
  const profile = {
    raw: await profileRequests({ raw: true, concurrency: 32, requests }),
    sdk: await profileRequests({ raw: false, concurrency: 32, requests }),
    requests,
  };
  return { cases: results, profile };
}

/** The rows of the summary: figure, target, measured, peers, whether the target is met. */
export function summarizeHttpOverhead({ cases: results }) {
  const find = (concurrency, prefix) => results.find((r) => r.concurrency === concurrency && r.name.startsWith(prefix));
  return [1, 32].map((concurrency) => {
    const sdk = results.find((r) => r.concurrency === concurrency && r.name === 'svc-sdk rooms.create');
    const before = results.find((r) => r.concurrency === concurrency && r.name.startsWith('baseline '));
    const peers = ['openai', 'ky defaults'].map((prefix) => find(concurrency, prefix));
    const ahead = peers.every((peer) => sdk.ratio < peer.ratio);
    const floor = find(concurrency, 'ky floor');
    return [
      `rooms.create vs raw fetch, ${concurrency === 1 ? 'sequential' : 'concurrency 32'}`,
      `≤ ${TARGET}×, ahead of peers`,
      `${times(sdk.ratio)} (${fixed(sdk.micros, 0)} µs vs ${fixed(find(concurrency, 'raw fetch').micros, 0)} µs); ky's floor ${times(floor.ratio)}`,
      [...peers.map((peer) => `${peer.name} ${times(peer.ratio)}`), ...(before ? [`${before.name.split(':')[0]} ${times(before.ratio)}`] : [])].join('; '),
      `${verdict(sdk.ratio <= TARGET && ahead)}${ahead ? ' (ahead of peers)' : ''}`,
    ];
  });
}

export function renderHttpOverhead(results) {
  const summary = summarizeHttpOverhead(results);
  const detail = results.cases.map(({ concurrency, name, micros, ratio }) => [String(concurrency), name, fixed(micros, 1), times(ratio)]);
  const { raw, sdk, requests } = results.profile;
  const places = [...new Set([...sdk.places.keys(), ...raw.places.keys()])];
  const where = places.map((place) => {
    const [a, b] = [raw.places.get(place) ?? 0, sdk.places.get(place) ?? 0];
    return [place, fixed(a, 1), fixed(b, 1), `${b - a >= 0 ? '+' : ''}${fixed(b - a, 1)}`];
  });
  where.push(['**total CPU per request**', fixed(raw.microsPerRequest, 1), fixed(sdk.microsPerRequest, 1), `+${fixed(sdk.microsPerRequest - raw.microsPerRequest, 1)}`]);
  // The SDK's chunk holds ky and zod too: its hottest functions say which of them the time is in.
  const hottest = [...sdk.functions].filter(([name]) => name.includes('dist/')).slice(0, 8);
  return [
    table(['figure', 'target', 'measured', 'peers', 'target met'], summary),
    '',
    'Every case (µs per request is wall time divided by requests, so at concurrency 32 it is the inverse of throughput):',
    '',
    table(['concurrency', 'call', 'µs / request (median)', 'vs raw fetch'], detail),
    '',
    `Where the time goes: CPU profiles (\`node --cpu-prof\`) of ${requests} requests at concurrency 32, raw fetch and`,
    '`rooms.create` each in a fresh process; self time per request, idle excluded. Time in the built package is split',
    'into ky, zod and the SDK\'s own code by the module each line was bundled from.',
    '',
    table(['spent in', 'raw fetch (µs)', 'svc-sdk rooms.create (µs)', 'difference (µs)'], where),
    '',
    'The hottest functions of the built package in that profile (self time per request):',
    '',
    table(['function (line in the built chunk)', 'µs'], hottest.map(([name, micros]) => [`\`${name.replace(/ .*\//, ' ')}\``, fixed(micros, 2)])),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderHttpOverhead(await benchHttpOverhead({ quick: process.argv.includes('--quick') })));
}
