// Per-request overhead on loopback: client.rooms.create vs raw fetch of the same request, vs ky's
// defaults and openai's client doing a comparable POST, sequential and at concurrency 32.
import ky from 'ky';
import OpenAI from 'openai';
import { Client } from 'svc-sdk';
import { fixed, interleave, table } from './lib/stats.mjs';
import { startLoopbackServer } from './lib/spawn-server.mjs';

const API_KEY = 'vdr_bench_key';
const params = { name: 'Bench room', room_type: 'company_investment' };

/** Runs `operations` calls of `call`, `concurrency` at a time. */
function runner(call, concurrency) {
  return async (operations) => {
    let next = 0;
    const worker = async () => {
      while (next++ < operations) await call();
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
}

export async function benchHttpOverhead({ quick = false } = {}) {
  const server = await startLoopbackServer();
  try {
    const client = new Client({ apiKey: API_KEY, baseUrl: server.url });
    const kyClient = ky.create({ prefix: `${server.url}/api/v1`, headers: { authorization: `Bearer ${API_KEY}` } });
    const openai = new OpenAI({ apiKey: API_KEY, baseURL: `${server.url}/api/v1` });
    const rawFetch = async () => {
      const response = await fetch(`${server.url}/api/v1/rooms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(params),
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      return (await response.json()).data;
    };
    const rawRequest = async () => {
      const request = new Request(`${server.url}/api/v1/rooms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(params),
      });
      return (await (await fetch(request)).json()).data;
    };
    const calls = {
      'raw fetch': rawFetch,
      'raw fetch of a Request (ky\'s floor: ky builds one per call)': rawRequest,
      'svc-sdk rooms.create': () => client.rooms.create(params),
      'ky defaults': () => kyClient.post('rooms', { json: params }).json(),
      'openai client.post': () => openai.post('/rooms', { body: params }),
    };
    const results = [];
    for (const concurrency of [1, 32]) {
      const cases = Object.entries(calls).map(([name, call]) => ({ name, run: runner(call, concurrency) }));
      for (const { run } of cases) await run(200); // warm up connections and JIT
      const medians = await interleave(cases, { rounds: quick ? 5 : 15, operations: quick ? 300 : 1000 });
      const base = medians.get('raw fetch');
      for (const [name, micros] of medians) results.push({ concurrency, name, micros, ratio: micros / base });
    }
    return results;
  } finally {
    server.stop();
  }
}

/** Markdown for BENCHMARKS.md. */
export function renderHttpOverhead(results) {
  const rows = results.map(({ concurrency, name, micros, ratio }) => [
    String(concurrency),
    name,
    fixed(micros, 1),
    `${fixed(ratio)}×`,
    name.startsWith('svc-sdk') ? (ratio <= 1.15 ? 'met (≤ 1.15×)' : 'missed (≤ 1.15×)') : '',
  ]);
  return table(['concurrency', 'call', 'µs / request (median)', 'vs raw fetch', 'target'], rows);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchHttpOverhead({ quick: process.argv.includes('--quick') });
  console.log(renderHttpOverhead(results));
}
