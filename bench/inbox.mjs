// The durable webhook inbox (svc-sdk/inbox on BullMQ), on a redis-server with an append-only file
// synced at every write (appendfsync always: no delivery answered 2xx can be lost):
//   ingress   server CPU per delivery of toNodeListener(createWebhookHandler({ secret, inbox })) against
//             the floor of any BullMQ ingress, a bare node:http server that verifies and calls
//             queue.add itself; 1 and 64 deliveries at a time, interleaved; the answers' p99 latency
//   workers   deliveries per second run by 1 and by 4 worker processes with a no-op `on`
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fixed, median, table, times, verdict } from './lib/stats.mjs';
import { measure, load, startRedis, startServer } from './webhook-throughput.mjs';

const WORKER = fileURLToPath(new URL('./lib/inbox-worker.mjs', import.meta.url));
/** Server CPU per delivery at most 10 % over the floor's: a CPU efficiency of at least 1 / 1.1. */
const TARGET = 1 / 1.1;
const NAMES = {
  'bare-bullmq': 'bare node:http, verify + queue.add (the floor of any BullMQ ingress)',
  'node-inbox': 'toNodeListener(createWebhookHandler({ secret, inbox: bullmqInbox(...) }))',
};

export async function benchInbox({ quick = false } = {}) {
  const redis = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  if (!redis) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const servers = new Map();
  try {
    const kinds = ['bare-bullmq', 'node-inbox'];
    for (const kind of kinds) servers.set(kind, await startServer(kind, redis.port));
    const rounds = quick ? 2 : 9;
    const rows = [];
    for (const connections of [1, 64]) {
      for (const { url } of servers.values()) await load(url, connections, 1);
      const samples = new Map(kinds.map((kind) => [kind, []]));
      for (let round = 0; round < rounds; round++) {
        for (let offset = 0; offset < kinds.length; offset++) {
          const kind = kinds[(round + offset) % kinds.length];
          const sample = await measure(servers.get(kind), connections, 1);
          samples.get(kind).push({ ...sample, cpuPerDelivery: sample.cpuMicros / sample.total });
        }
      }
      const floor = samples.get('bare-bullmq');
      for (const kind of kinds) {
        const list = samples.get(kind);
        rows.push({
          kind,
          connections,
          perSecond: median(list.map((s) => s.perSecond)),
          cpuPerDelivery: median(list.map((s) => s.cpuPerDelivery)),
          vsFloor: median(list.map((s, round) => floor[round].cpuPerDelivery / s.cpuPerDelivery)),
          p99Ms: median(list.map((s) => s.p99Ms)),
          non2xx: list.reduce((sum, s) => sum + s.non2xx, 0),
        });
      }
    }
    const workers = [];
    for (const processes of [1, 4]) workers.push({ processes, ...(await workerThroughput(redis.port, processes, quick ? 2000 : 10_000)) });
    return { rows, workers };
  } finally {
    for (const { child } of servers.values()) child.kill();
    redis.stop();
  }
}

/** Deliveries per second that `processes` worker processes (concurrency 16 each, no-op `on`) run from a filled inbox. */
async function workerThroughput(port, processes, count) {
  const queue = `bench-workers-${processes}-${Date.now()}`;
  const children = [];
  try {
    // The first child fills the queue, then every child starts its worker at the same signal.
    for (let index = 0; index < processes; index++) {
      const child = fork(WORKER, [String(port), queue, String(index === 0 ? count : 0)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      children.push(child);
      await new Promise((resolve, reject) => {
        child.once('message', resolve);
        child.once('exit', (code) => reject(new Error(`inbox worker exited with ${code}`)));
      });
    }
    const done = children.map((child) => new Promise((resolve) => child.on('message', (message) => message.processed !== undefined && resolve(message))));
    const started = performance.now();
    for (const child of children) child.send({ start: count });
    await Promise.race([Promise.all(done), new Promise((resolve) => setTimeout(resolve, 120_000))]);
    const seconds = (performance.now() - started) / 1000;
    return { count, perSecond: count / seconds };
  } finally {
    for (const child of children) child.kill();
  }
}

export function summarizeInbox({ rows, workers }) {
  const mine = rows.filter((row) => row.kind === 'node-inbox');
  const worst = mine.reduce((a, b) => (a.vsFloor <= b.vsFloor ? a : b));
  return [
    [
      'server CPU per delivery, inbox ingress (`toNodeListener`, appendfsync always), vs the bare verify + `queue.add` server (CPU efficiency, c1 and c64)',
      `≥ ${fixed(TARGET)}× (≤ +10 %)`,
      `${times(worst.vsFloor)} (concurrency ${worst.connections}; ${fixed(worst.cpuPerDelivery, 1)} µs)`,
      mine.map((row) => `c${row.connections} ${times(row.vsFloor)}, p99 ${fixed(row.p99Ms, 1)} ms`).join('; '),
      verdict(worst.vsFloor >= TARGET),
    ],
    [
      'worker throughput, no-op `on` (deliveries/s)',
      'stated',
      workers.map((w) => `${w.processes} process${w.processes === 1 ? '' : 'es'}: ${Math.round(w.perSecond)}/s`).join('; '),
      `${workers[0].count} deliveries each`,
      '(stated)',
    ],
  ];
}

export function renderInbox(results) {
  return [
    table(['figure', 'target', 'measured', 'every case', 'target met'], summarizeInbox(results)),
    '',
    table(
      ['ingress', 'concurrency', 'deliveries/s', 'server CPU µs / delivery', 'CPU efficiency vs the floor', 'p99 answer (ms)', 'non-200 answers'],
      results.rows.map((row) => [NAMES[row.kind], row.connections, Math.round(row.perSecond), fixed(row.cpuPerDelivery, 1), times(row.vsFloor), fixed(row.p99Ms, 1), row.non2xx]),
    ),
    '',
    'Redis runs with `appendonly yes` and `appendfsync always`: each stored delivery is on disk before the receiver answers, so the',
    "p99 includes an fsync. The floor does only what any BullMQ ingress must: the HMAC, the id and kind read, one `queue.add`.",
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderInbox(await benchInbox({ quick: process.argv.includes('--quick') })));
}
