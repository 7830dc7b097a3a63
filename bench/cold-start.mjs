// Cold start in Node, each figure a fresh process: the time an `import()` adds over a bare
// `node -e ""`, and the time from process start to the first response of a POST to a loopback
// server, for svc-sdk, raw fetch, openai and stripe. Each child reports `performance.now()` (ms
// since its process started) at the moment measured, so process teardown is not counted.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fixed, median, table, verdict } from './lib/stats.mjs';
import { startLoopbackServer } from './lib/spawn-server.mjs';
import { baselineName, baselineRef } from './lib/baseline.mjs';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const params = `{ name: 'Bench room', room_type: 'company_investment' }`;

const imports = {
  'bare node': '',
  "import('svc-sdk/webhooks')": `await import('svc-sdk/webhooks');`,
  "import('@octokit/webhooks-methods')": `await import('@octokit/webhooks-methods');`,
  "import('node:crypto') (what the webhook helpers load)": `await import('node:crypto');`,
  "import('svc-sdk')": `await import('svc-sdk');`,
  "import('zod/mini')": `await import('zod/mini');`,
  "import('ky')": `await import('ky');`,
  "import('openai')": `await import('openai');`,
  "import('stripe')": `await import('stripe');`,
};

const firstResponse = {
  'raw fetch': `const response = await fetch(URL + '/api/v1/rooms', { method: 'POST', headers: { authorization: 'Bearer vdr_x', 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(${params}) }); (await response.json()).data;`,
  'svc-sdk rooms.create': `const { Client } = await import('svc-sdk'); await new Client({ apiKey: 'vdr_x', baseUrl: URL }).rooms.create(${params});`,
  'openai client.post': `const { default: OpenAI } = await import('openai'); await new OpenAI({ apiKey: 'vdr_x', baseURL: URL + '/api/v1' }).post('/rooms', { body: ${params} });`,
  'stripe rawRequest': `const { default: Stripe } = await import('stripe'); const { hostname, port } = new globalThis.URL(URL); await new Stripe('sk_test_x', { host: hostname, port, protocol: 'http', maxNetworkRetries: 0 }).rawRequest('POST', '/api/v1/rooms', ${params});`,
};

/** Runs one script in a fresh process; returns `performance.now()` at its end (ms since process start). */
function runOnce(code, env) {
  const script = `${code}\nprocess.stdout.write(String(performance.now()));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    // From bench/, where openai, stripe and @octokit/webhooks-methods are installed (bench/package.json),
    // svc-sdk is linked (scripts/install-deps.mjs), and zod and ky resolve up to the project's node_modules.
    cwd: BENCH_DIR,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`cold start script failed: ${result.stderr}`);
  return Number(result.stdout);
}

/** Interleaves the scripts (the order rotating each round) and returns each one's median time. */
function measure(scripts, rounds, env) {
  const names = Object.keys(scripts);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (const name of names) runOnce(scripts[name], env); // fill the disk cache once
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < names.length; offset++) {
      const name = names[(round + offset) % names.length];
      samples[name].push(runOnce(scripts[name], env));
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

// The files Node reads for an import (the package's own and its dependencies'; built-ins are not
// files): a count that no load on the machine moves, while each file costs the cold start a
// resolve, a read, a compile and a link.
const counted = {
  "import('svc-sdk/webhooks')": `await import('svc-sdk/webhooks');`,
  "import('svc-sdk')": `await import('svc-sdk');`,
  "import('@octokit/webhooks-methods')": `await import('@octokit/webhooks-methods');`,
};

/** How many files Node loads for each script (module.registerHooks counting `file:` URLs). */
function countFiles(scripts) {
  const hook = `const files = new Set(); (await import('node:module')).registerHooks({ load(url, context, next) { if (url.startsWith('file:')) files.add(url); return next(url, context); } });`;
  return Object.fromEntries(
    Object.entries(scripts).map(([name, code]) => {
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', `${hook}\n${code}\nprocess.stdout.write(String(files.size));`], { cwd: BENCH_DIR, encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`file count script failed: ${result.stderr}`);
      return [name, Number(result.stdout)];
    }),
  );
}

export async function benchColdStart({ quick = false } = {}) {
  const rounds = quick ? 5 : 21;
  // With an A/B baseline, its build's two imports in the same interleaved rounds.
  const baseline = baselineRef()
    ? {
        [baselineName("import('svc-sdk/webhooks')")]: `await import('svc-sdk-baseline/webhooks');`,
        [baselineName("import('svc-sdk')")]: `await import('svc-sdk-baseline');`,
      }
    : {};
  const files = countFiles({ ...counted, ...baseline });
  const importTimes = measure({ ...imports, ...baseline }, rounds, {});
  const server = await startLoopbackServer();
  try {
    const scripts = Object.fromEntries(
      Object.entries(firstResponse).map(([name, code]) => [name, `const URL = process.env.BENCH_URL; ${code}`]),
    );
    const responseTimes = measure(scripts, rounds, { BENCH_URL: server.url });
    return { importTimes, responseTimes, files };
  } finally {
    server.stop();
  }
}

/** The rows of the summary: figure, target, measured, peers, whether the target is met. */
export function summarizeColdStart({ importTimes, responseTimes, files = {} }) {
  const bare = importTimes['bare node'];
  const raw = responseTimes['raw fetch'];
  const webhooks = importTimes["import('svc-sdk/webhooks')"] - bare;
  const sdk = responseTimes['svc-sdk rooms.create'] - raw;
  const openai = responseTimes['openai client.post'] - raw;
  const stripe = responseTimes['stripe rawRequest'] - raw;
  return [
    [
      "`import('svc-sdk/webhooks')` over bare node",
      '< 10 ms',
      `+${fixed(webhooks, 1)} ms${files["import('svc-sdk/webhooks')"] ? ` (${files["import('svc-sdk/webhooks')"]} files)` : ''}`,
      `@octokit/webhooks-methods +${fixed(importTimes["import('@octokit/webhooks-methods')"] - bare, 1)} ms${
        baselineRef() ? `; baseline ${baselineRef()} +${fixed(importTimes[baselineName("import('svc-sdk/webhooks')")] - bare, 1)} ms` : ''
      }`,
      verdict(webhooks < 10),
    ],
    [
      'process start → first `rooms.create` response, over raw fetch',
      '≤ +30 ms, ahead of openai and stripe',
      `+${fixed(sdk, 1)} ms`,
      `openai +${fixed(openai, 1)} ms; stripe +${fixed(stripe, 1)} ms`,
      verdict(sdk <= 30 && sdk < openai && sdk < stripe),
    ],
  ];
}

export function renderColdStart({ importTimes, responseTimes, files = {} }) {
  const summary = summarizeColdStart({ importTimes, responseTimes, files });
  const bare = importTimes['bare node'];
  const raw = responseTimes['raw fetch'];
  const importRows = Object.entries(importTimes).map(([name, ms]) => [name, fixed(ms, 1), name === 'bare node' ? '' : `+${fixed(ms - bare, 1)}`]);
  const responseRows = Object.entries(responseTimes).map(([name, ms]) => [name, fixed(ms, 1), name === 'raw fetch' ? '' : `+${fixed(ms - raw, 1)}`]);
  return [
    table(['figure', 'target', 'measured', 'peers', 'target met'], summary),
    '',
    'Every script, medians over fresh processes (ms since the process started):',
    '',
    table(['process runs', 'ms at the end (median)', 'over bare node (ms)'], importRows),
    '',
    table(['process start → first response', 'ms (median)', 'over raw fetch (ms)'], responseRows),
    '',
    table(['import', 'files Node loads (built-ins aside)'], Object.entries(files).map(([name, count]) => [name, String(count)])),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderColdStart(await benchColdStart({ quick: process.argv.includes('--quick') })));
}
