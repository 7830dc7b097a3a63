// What the network features cost a call that does not use them: a GET through this build's client
// (a retry budget of its own, the retry rule of core/retry-decision.ts, no governor) against the same
// GET through the build of `--baseline <ref>` (today's call: default the branch's base), in the same
// interleaved rounds, on loopback with the server in its own process. Also shown: a client with a
// governor that never makes a call wait (maxConcurrency 10 000), the cost of the check per attempt.
//   npm run build && npm run bench:deps && node bench/governor.mjs [--baseline <ref>] [--quick]
import { spawnSync } from 'node:child_process';
import { Client } from 'svc-sdk';
import { importBaseline } from './lib/baseline.mjs';
import { runner } from './lib/runner.mjs';
import { startLoopbackServer } from './lib/spawn-server.mjs';
import { fixed, interleave, table, times, verdict } from './lib/stats.mjs';

const API_KEY = 'vdr_bench_key';
const TARGET = 1.01;
const quick = process.argv.includes('--quick');
const refIndex = process.argv.indexOf('--baseline');
const ref = refIndex === -1 ? 'b5fee7b' : process.argv[refIndex + 1];

// The baseline build, made (and kept) by the script every A/B bench uses.
const built = spawnSync(process.execPath, [new URL('../scripts/build-baseline.mjs', import.meta.url).pathname, ref], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
process.env.BENCH_BASELINE = ref;

/** Measures the cases, `concurrency` at a time; returns their rows against the baseline's GET. */
export async function benchGovernor() {
  const server = await startLoopbackServer();
  const rows = [];
  try {
    const baseline = await importBaseline();
    const options = { apiKey: API_KEY, baseUrl: server.url };
    const today = new baseline.Client(options);
    const unused = new Client(options);
    const idle = new Client({ ...options, maxConcurrency: 10_000 });
    const get = (client) => () => client.request({ method: 'GET', path: '/rooms' });
    const calls = {
      [`baseline ${ref}: GET (today's call)`]: get(today),
      'this build: GET, governor unused': get(unused),
      'this build: GET, a governor that never waits (maxConcurrency 10 000)': get(idle),
    };
    for (const concurrency of [1, 32]) {
      const cases = Object.entries(calls).map(([name, call]) => ({ name, run: runner(call, concurrency) }));
      for (const { run } of cases) await run(500); // open the connections, warm the JIT
      const measured = await interleave(cases, { rounds: quick ? 15 : 80, operations: concurrency === 1 ? 80 : 320, baseline: `baseline ${ref}: GET (today's call)` });
      for (const [name, { micros, ratio }] of measured) rows.push({ concurrency, name, micros, ratio });
    }
  } finally {
    server.stop();
  }
  return rows;
}

const rows = await benchGovernor();
console.log(
  table(
    ['at once', 'case', 'µs per call', 'vs today', `target ≤ ${TARGET}×`],
    rows.map(({ concurrency, name, micros, ratio }) => [
      concurrency,
      name,
      fixed(micros, 1),
      times(ratio),
      name.includes('governor unused') ? verdict(ratio <= TARGET) : '',
    ]),
  ),
);
