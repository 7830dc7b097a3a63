// Cold start in Node: whole-process wall time of small scripts, interleaved, medians; reported as
// the time each adds over a bare `node -e ""`.
import { spawnSync } from 'node:child_process';
import { fixed, median, table } from './lib/stats.mjs';
import { startLoopbackServer } from './lib/spawn-server.mjs';

const firstResponse = {
  'raw fetch': `const r = await fetch(URL + '/api/v1/rooms', { method: 'POST', headers: { authorization: 'Bearer vdr_x', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'r', room_type: 'company_investment' }) }); await r.json();`,
  'svc-sdk rooms.create': `const { Client } = await import('svc-sdk'); await new Client({ apiKey: 'vdr_x', baseUrl: URL }).rooms.create({ name: 'r', room_type: 'company_investment' });`,
  'openai client.post': `const { default: OpenAI } = await import('openai'); await new OpenAI({ apiKey: 'x', baseURL: URL + '/api/v1' }).post('/rooms', { body: { name: 'r' } });`,
  'stripe (import + client)': `const { default: Stripe } = await import('stripe'); new Stripe('sk_test_x'); const r = await fetch(URL + '/api/v1/rooms', { method: 'POST', body: '{}' }); await r.json();`,
};

const imports = {
  'bare node -e ""': '',
  "import('svc-sdk/webhooks')": `await import('svc-sdk/webhooks');`,
  "import('@octokit/webhooks-methods')": `await import('@octokit/webhooks-methods');`,
  "import('svc-sdk')": `await import('svc-sdk');`,
  "import('ky')": `await import('ky');`,
  "import('openai')": `await import('openai');`,
};

/** Wall time of one `node --input-type=module -e code` run, in ms. */
function runOnce(code, env) {
  const start = performance.now();
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cold start script failed: ${result.stderr}`);
  return performance.now() - start;
}

/** Interleaves the scripts for `rounds` rounds and returns each one's median wall time. */
function measure(scripts, rounds, env) {
  const samples = Object.fromEntries(Object.keys(scripts).map((name) => [name, []]));
  const names = Object.keys(scripts);
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < names.length; offset++) {
      const name = names[(round + offset) % names.length];
      samples[name].push(runOnce(scripts[name], env));
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

export async function benchColdStart({ quick = false } = {}) {
  const rounds = quick ? 5 : 15;
  const importTimes = measure(imports, rounds, {});
  const server = await startLoopbackServer();
  try {
    const scripts = Object.fromEntries(
      Object.entries(firstResponse).map(([name, code]) => [name, `const URL = process.env.BENCH_URL; ${code}`]),
    );
    const responseTimes = measure(scripts, rounds, { BENCH_URL: server.url });
    return { importTimes, responseTimes };
  } finally {
    server.stop();
  }
}

export function renderColdStart({ importTimes, responseTimes }) {
  const bare = importTimes['bare node -e ""'];
  const raw = responseTimes['raw fetch'];
  const importRows = Object.entries(importTimes).map(([name, ms]) => [
    name,
    `${fixed(ms, 1)} ms`,
    `+${fixed(ms - bare, 1)} ms`,
    name === "import('svc-sdk/webhooks')" ? (ms - bare < 10 ? 'met (< 10 ms)' : 'missed (< 10 ms)') : '',
  ]);
  const responseRows = Object.entries(responseTimes).map(([name, ms]) => [
    name,
    `${fixed(ms, 1)} ms`,
    `+${fixed(ms - raw, 1)} ms`,
    name.startsWith('svc-sdk') ? (ms - raw <= 30 ? 'met (≤ 30 ms)' : 'missed (≤ 30 ms)') : '',
  ]);
  return [
    table(['process runs', 'wall time (median)', 'over bare node', 'target'], importRows),
    '',
    table(['process start → first response', 'wall time (median)', 'over raw fetch', 'target'], responseRows),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(renderColdStart(await benchColdStart({ quick: process.argv.includes('--quick') })));
