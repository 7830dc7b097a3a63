// The inbox's ingress with its dashboard mounted (issue 43: "ingress CPU per delivery unchanged within
// noise with the dashboard mounted"): an Express app whose POST /webhooks is
// toNodeListener(createWebhookHandler({ secret, inbox: bullmqInbox(...) })), alone and with
// createInboxDashboard (bull-board) mounted at /admin/inbox on the same inbox, in the same process;
// each in its own process, on a redis-server with `appendfsync always`; autocannon sends unique signed
// deliveries 1 and 64 at a time, cases interleaved. A second process of the app without the dashboard
// runs in the same rounds: its ratio to the first (A/A) is the noise the dashboard's ratio is read against.
//   node bench/inbox-dashboard.mjs [--quick]   (after `npm run build` and `npm run bench:deps`)
import { fixed, median, table, times, verdict } from './lib/stats.mjs';
import { load, measure, startRedis, startServer } from './webhook-throughput.mjs';

/** The cases: the app alone (twice, for the noise) and with the dashboard mounted. */
const CASES = [
  { name: 'without', kind: 'express-inbox' },
  { name: 'without-again', kind: 'express-inbox' },
  { name: 'dashboard', kind: 'express-inbox-dashboard' },
];
const NAMES = {
  without: 'Express app, POST /webhooks → the inbox ingress',
  'without-again': 'the same app in a second process (A/A: the noise)',
  dashboard: 'the same app with createInboxDashboard mounted at /admin/inbox',
};
/** Unchanged: at most 5 % more CPU per delivery, or within the A/A ratios of the same run when they spread wider. */
const BOUND = 1.05;
/** Seconds of load per case and round (BENCH_INBOX_DASHBOARD_SECONDS): 2 by default, 1 with --quick. */
const SECONDS = Number(process.env.BENCH_INBOX_DASHBOARD_SECONDS) || (process.argv.includes('--quick') ? 1 : 2);

export async function benchInboxDashboard({ quick = false } = {}) {
  const redis = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  if (!redis) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const servers = new Map();
  try {
    for (const { name, kind } of CASES) servers.set(name, await startServer(kind, redis.port));
    const rounds = quick ? 3 : 9;
    const rows = [];
    for (const connections of [1, 64]) {
      for (const { url } of servers.values()) await load(url, connections, 1);
      const samples = new Map(CASES.map(({ name }) => [name, []]));
      for (let round = 0; round < rounds; round++) {
        for (let offset = 0; offset < CASES.length; offset++) {
          const { name } = CASES[(round + offset) % CASES.length];
          const sample = await measure(servers.get(name), connections, SECONDS);
          samples.get(name).push({ ...sample, cpuPerDelivery: sample.cpuMicros / sample.total });
        }
      }
      const base = samples.get('without');
      for (const { name } of CASES) {
        const list = samples.get(name);
        // A round in which either case answered nothing (a machine too loaded for a second) has no ratio.
        const ratios = list.map((s, round) => s.cpuPerDelivery / base[round].cpuPerDelivery).filter((ratio) => Number.isFinite(ratio) && ratio > 0);
        rows.push({
          name,
          connections,
          perSecond: median(list.map((s) => s.perSecond)),
          cpuPerDelivery: median(list.map((s) => s.cpuPerDelivery).filter(Number.isFinite)),
          ratio: median(ratios),
          low: Math.min(...ratios),
          high: Math.max(...ratios),
          p99Ms: median(list.map((s) => s.p99Ms)),
          non2xx: list.reduce((sum, s) => sum + s.non2xx, 0),
        });
      }
    }
    return { rows, rounds, seconds: SECONDS };
  } finally {
    for (const { child } of servers.values()) child.kill();
    redis.stop();
  }
}

/** Per concurrency: the dashboard's ratio, the A/A ratio and its spread, and whether the dashboard is within the bound. */
function verdicts({ rows }) {
  return [1, 64].map((connections) => {
    const of = (name) => rows.find((row) => row.connections === connections && row.name === name);
    const dashboard = of('dashboard');
    const noise = of('without-again');
    const bound = Math.max(BOUND, noise.high);
    return { connections, dashboard, noise, bound, met: dashboard.ratio <= bound };
  });
}

export function summarizeInboxDashboard(results) {
  const cases = verdicts(results);
  const worst = cases.reduce((a, b) => (a.dashboard.ratio >= b.dashboard.ratio ? a : b));
  return [
    [
      'server CPU per delivery, inbox ingress in an Express app with the dashboard mounted, vs without (c1 and c64)',
      `≤ ${fixed(BOUND)}× (or the A/A spread)`,
      `${times(worst.dashboard.ratio)} (concurrency ${worst.connections}; A/A ${times(worst.noise.ratio)}, ${fixed(worst.noise.low)}–${fixed(worst.noise.high)})`,
      cases.map((c) => `c${c.connections} ${times(c.dashboard.ratio)} (A/A ${times(c.noise.ratio)})`).join('; '),
      verdict(cases.every((c) => c.met)),
    ],
  ];
}

export function renderInboxDashboard(results) {
  return [
    table(['figure', 'target', 'measured', 'every case', 'target met'], summarizeInboxDashboard(results)),
    '',
    table(
      ['ingress', 'concurrency', 'deliveries/s', 'server CPU µs / delivery', 'CPU vs without (median of rounds)', 'per-round range', 'p99 answer (ms)', 'non-200 answers'],
      results.rows.map((row) => [NAMES[row.name], row.connections, Math.round(row.perSecond), fixed(row.cpuPerDelivery, 1), times(row.ratio), `${fixed(row.low)}–${fixed(row.high)}`, fixed(row.p99Ms, 1), row.non2xx]),
    ),
    '',
    `${results.rounds} interleaved rounds of ${results.seconds} s per case and concurrency. The dashboard is bull-board over the inbox's queue, behind its`,
    'credential; nobody looks at it during the run (its page and API answered once at start): what is measured is what mounting it costs the ingress.',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderInboxDashboard(await benchInboxDashboard({ quick: process.argv.includes('--quick') })));
}
