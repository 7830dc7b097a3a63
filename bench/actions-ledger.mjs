// svc-sdk/actions on a real redis-server (append-only file, appendfsync everysec), with the built package:
//   record    events recorded per second by ledger.record (proposal then decision of each action, 1 and 32
//             actions at a time) against the floor: the very same Lua script (src/actions/redis-scripts.ts)
//             and MGET run bare, with every key, version and JSON text prepared in advance, so that what the
//             ledger adds (reading the event, the transition, JSON, its promises) is all the difference;
//             interleaved rounds, the median of the ratios within a round. Target ≥ 0.90× the floor.
//   latency   from the start of ledger.record(decision) in this process to waitForDecision resolving in
//             another process (its polling set to a minute: the channel tells it), p50 and p99, timed on
//             this process's clock: the round trip to the waiter's report, less the report's way back.
// Run alone: `npm run build && node bench/actions-ledger.mjs [--quick] [--latency]` (--latency: that part alone) (not in bench/run.mjs's default set).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createActionLedger, createRedisLedgerStore } from 'svc-sdk/actions';
import { COMMIT_SCRIPT } from '../src/actions/redis-scripts.ts';
import { fixed, median, quantile, table, times, verdict } from './lib/stats.mjs';

const WAITER = fileURLToPath(new URL('./lib/actions-waiter.mjs', import.meta.url));
const TARGET = 0.9;
const TTL = String(7 * 86_400_000);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function startRedis() {
  if (spawnSync('redis-server', ['--version']).status !== 0) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-actions-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec']);
  await new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return { port, stop: () => (child.kill(), rmSync(dir, { recursive: true, force: true })) };
}

let sequence = 0;
const at = () => new Date().toISOString();
/** The two deliveries of one action: its proposal and its approval, as the service sends them. */
function actionEvents(round, index) {
  const id = `a${round}-${index}`;
  const run = `r${round}-${index % 50}`;
  return [
    { event: 'action.approval_required', version: '1.0', delivery_id: `d${++sequence}`, timestamp: at(), data: { action_id: id, run_id: run, kind: 'send_email', proposal: { to: 'lp@example.com', subject: 'Q3 letter' } } },
    { event: 'action.approved', version: '1.0', delivery_id: `d${++sequence}`, timestamp: at(), data: { action_id: id, run_id: run, kind: 'send_email', result: { sent: true } } },
  ];
}

/** `actions` actions, `concurrency` at a time, each its proposal then its decision, through `record`. */
async function drive(actions, concurrency, record) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < actions.length) {
        const [proposal, decision] = actions[next++];
        await record(proposal);
        await record(decision);
      }
    }),
  );
}

/** The floor's commands for one action, prepared in advance: MGET then EVALSHA per event, as the store sends them. */
function floorCommands(prefix, [proposal, decision]) {
  const id = proposal.data.action_id;
  const runId = proposal.data.run_id;
  const doc = `${prefix}doc:action:${id}`;
  const pending = { actionId: id, status: 'pending', kind: 'send_email', runId, proposal: proposal.data.proposal, proposedAt: proposal.timestamp };
  const approved = { ...pending, status: 'approved', decision: { status: 'approved', result: { sent: true } }, decidedAt: decision.timestamp };
  const keys = (event) => [doc, `${prefix}seen:${event.delivery_id}`, `${prefix}pending`, `${prefix}run:${runId}`, `${prefix}decided`, `${prefix}sequence`, `${prefix}handlers`];
  return [
    { mget: [doc, `${prefix}seen:${proposal.delivery_id}`], keys: keys(proposal), args: ['0', JSON.stringify(pending), TTL, 'add', String(Date.parse(proposal.timestamp)), id, '1', '', `${prefix}todo:`, `${prefix}decided`] },
    { mget: [doc, `${prefix}seen:${decision.delivery_id}`], keys: keys(decision), args: ['1', JSON.stringify(approved), TTL, 'remove', '', id, '', '1', `${prefix}todo:`, `${prefix}decided`] },
  ];
}

export async function benchActionsLedger({ quick = false } = {}) {
  const redis = await startRedis();
  const client = new Redis({ host: '127.0.0.1', port: redis.port });
  try {
    const sha = await client.script('LOAD', COMMIT_SCRIPT);
    // Many short rounds: on a shared machine, load that comes and goes lands on both cases alike.
    const rounds = quick ? 6 : 21;
    const perRound = quick ? 200 : 500;
    const rows = [];
    for (const concurrency of [1, 32]) {
      const samples = { floor: [], ledger: [] };
      const cpu = { floor: [], ledger: [] };
      for (let round = 0; round < rounds + 1; round++) {
        // Round 0 warms both up and is not counted.
        for (const kind of round % 2 ? ['floor', 'ledger'] : ['ledger', 'floor']) {
          const prefix = `bench:${concurrency}:${round}:${kind}:`;
          const actions = Array.from({ length: perRound }, (_, index) => actionEvents(`${concurrency}-${round}-${kind}`, index));
          let started;
          let cpuStart;
          if (kind === 'ledger') {
            const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix }) });
            await ledger.get('warm'); // the durability check, once, outside the timing
            await ledger.record(actionEvents('warm', round)[0]);
            started = performance.now();
            cpuStart = process.cpuUsage();
            await drive(actions, concurrency, (event) => ledger.record(event));
          } else {
            const prepared = actions.map((pair) => floorCommands(prefix, pair));
            started = performance.now();
            cpuStart = process.cpuUsage();
            // Through the client's raw-command path, as the store sends them.
            await drive(prepared, concurrency, async (command) => {
              await client.call('MGET', ...command.mget);
              await client.call('EVALSHA', sha, String(command.keys.length), ...command.keys, ...command.args);
            });
          }
          const seconds = (performance.now() - started) / 1000;
          const used = process.cpuUsage(cpuStart);
          if (round > 0) {
            samples[kind].push((2 * perRound) / seconds);
            cpu[kind].push((used.user + used.system) / (2 * perRound));
          }
        }
      }
      const ratio = median(samples.ledger.map((value, round) => value / samples.floor[round]));
      rows.push({ concurrency, floor: median(samples.floor), ledger: median(samples.ledger), ratio, met: ratio >= TARGET, floorCpu: median(cpu.floor), ledgerCpu: median(cpu.ledger) });
    }
    const latency = await measureLatency(redis.port, quick ? 100 : 400);
    return { rows, latency, rounds, perRound };
  } finally {
    client.disconnect();
    redis.stop();
  }
}

/**
 * Decisions recorded here one at a time; a waiter process reports each as it resolves. Timed on this
 * process's clock alone (two processes' clocks do not agree to the millisecond: comparing them gave
 * negative latencies): from the start of record(decision) to this process reading the waiter's
 * report, which adds the report's way back over a pipe; that way is measured apart, as half the
 * round trip of a ping the waiter answers at once, and taken off.
 */
async function measureLatency(port, count) {
  const prefix = 'bench:latency:';
  const client = new Redis({ host: '127.0.0.1', port });
  const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix }) });
  const actions = Array.from({ length: count }, (_, index) => actionEvents('latency', index));
  for (const [proposal] of actions) await ledger.record(proposal);
  const child = spawn(process.execPath, [WAITER], { env: { ...process.env, REDIS_PORT: String(port), PREFIX: prefix, IDS: actions.map(([p]) => p.data.action_id).join(',') }, stdio: ['pipe', 'pipe', 'inherit'] });
  // Each line the waiter prints, with the moment this process read it.
  const expected = new Map();
  const lineAt = (line) => new Promise((resolve) => expected.set(line, resolve));
  const early = new Map();
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    const now = performance.now();
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop();
    for (const line of lines) {
      const resolve = expected.get(line);
      if (!resolve) early.set(line, now);
      else {
        expected.delete(line);
        resolve(now);
      }
    }
  });
  const heardAt = (line, timeoutMs) =>
    early.has(line) ? Promise.resolve(early.get(line)) : Promise.race([lineAt(line), new Promise((resolve) => setTimeout(resolve, timeoutMs, Number.NaN))]);
  await heardAt('waiting', 60_000);
  const done = new Promise((resolve) => child.once('exit', resolve));
  const pipe = [];
  for (let index = 0; index < 50; index++) {
    const started = performance.now();
    child.stdin.write(`ping ${index}\n`);
    pipe.push(((await heardAt(`pong ${index}`, 10_000)) - started) / 2);
  }
  const wayBack = median(pipe);
  const latencies = [];
  for (const [proposal, decision] of actions) {
    const started = performance.now();
    const heard = heardAt(`heard ${proposal.data.action_id}`, 10_000);
    await ledger.record(decision);
    latencies.push((await heard) - started - wayBack);
  }
  child.stdin.end();
  await done;
  await ledger.close();
  client.disconnect();
  const measured = latencies.filter((value) => Number.isFinite(value));
  return { count, p50: quantile(measured, 0.5), p99: quantile(measured, 0.99), wayBack, missing: count - measured.length };
}

export function renderActionsLedger({ rows, latency, rounds, perRound }) {
  return [
    `Events recorded per second on Redis (append-only, everysec), ${rounds} interleaved rounds of ${2 * perRound} events (${perRound} actions: proposal, then approval); the floor runs the store's own Lua script and MGET bare, everything prepared in advance.`,
    '',
    table(
      ['actions at once', 'floor (events/s)', 'ledger.record (events/s)', 'ledger vs floor', `target ≥ ${times(TARGET)}`, 'this process\'s CPU per event: floor / ledger (µs)'],
      rows.map((row) => [row.concurrency, fixed(row.floor, 0), fixed(row.ledger, 0), times(row.ratio), verdict(row.met), `${fixed(row.floorCpu, 1)} / ${fixed(row.ledgerCpu, 1)}`]),
    ),
    '',
    `Decision to waiter in another process (${latency.count} decisions, one at a time; the waiter's polling is a minute, so the channel told it), on this process's clock: p50 ${fixed(latency.p50)} ms, p99 ${fixed(latency.p99)} ms (the round trip to the waiter's report less its way back over a pipe, ${fixed(latency.wayBack, 3)} ms)${latency.missing ? `, ${latency.missing} never heard` : ''}.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--latency')) {
    // The latency alone (no record rounds): `node bench/actions-ledger.mjs --latency [--quick]`.
    const redis = await startRedis();
    try {
      const latency = await measureLatency(redis.port, process.argv.includes('--quick') ? 100 : 400);
      console.log(renderActionsLedger({ rows: [], latency, rounds: 0, perRound: 0 }).split('\n').at(-1));
    } finally {
      redis.stop();
    }
  } else {
    const results = await benchActionsLedger({ quick: process.argv.includes('--quick') });
    console.log(renderActionsLedger(results));
  }
}
