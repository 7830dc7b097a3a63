// The actions ledger's promise, proven end to end. The service is the emulator (its agents propose,
// its GP decides, its clock expires; deliveries out of order, twice, and late by its faults and
// shortened retries); the receivers (a cluster storing into svc-sdk/inbox, SIGKILLing themselves
// between the durable write and the answer), the workers (inbox worker + ledger.record +
// ledger.onDecision, SIGKILLed at random) and a waiter (waitForDecision for every action) are real
// processes, over one redis-server (append-only, appendfsync always). The check:
//   - every action ends in the state the emulator gave it, read by a fresh ledger (a restarted process);
//   - each onDecision handler's effect happened once per action, a second time only after a kill of
//     the worker that ran it before, and then the ledger's run count says so;
//   - the waiter, another process, resolved for every action with its decision;
//   - the credits are low, as the emulator's balance.
// Used by test/actions/scenario.test.ts: scaled to a minute, or the full run with ACTIONS_PROOF=full.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { Client } from 'svc-sdk';
import { createActionLedger, createRedisLedgerStore } from 'svc-sdk/actions';
import { bullmqInbox } from 'svc-sdk/inbox';
import { createEmulator } from 'svc-sdk/testing';
import { freePort } from '../../webhooks/redis-server.ts';
import { startTestRedis } from '../../inbox/redis.ts';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const randomInt = (min, max) => min + Math.floor(Math.random() * (max - min + 1));
const pick = (list) => list[Math.floor(Math.random() * list.length)];

/** A child process kept running: restarted whenever it exits, until stopped (as in the inbox's no-loss scenario). */
function supervised(script, env, ready) {
  let child;
  let stopped = false;
  let kills = 0;
  const start = () =>
    new Promise((resolve, reject) => {
      child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
      const current = child;
      current.stdout.on('data', (chunk) => {
        const text = String(chunk);
        if (text.includes(ready)) resolve();
        kills += text.split('killed\n').length - 1;
      });
      current.once('exit', () => {
        reject(new Error(`${script} exited before it was ready`));
        if (!stopped && current === child) setTimeout(() => void start().catch(() => {}), 50);
      });
    });
  return {
    start,
    get kills() {
      return kills;
    },
    get pid() {
      return child?.pid;
    },
    kill() {
      child?.kill('SIGKILL');
    },
    async stop() {
      stopped = true;
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** The waiter: waitForDecision for every id, in a process of its own; its lines as they come. */
function waiter(env) {
  const child = spawn(process.execPath, [here('../cross-process/waiter.mjs')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const heard = new Map();
  let buffer = '';
  let resolveWaiting;
  const waiting = new Promise((resolve) => (resolveWaiting = resolve));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdout.on('data', (chunk) => {
    buffer += String(chunk);
    const lines = buffer.split('\n');
    buffer = lines.pop();
    for (const line of lines) {
      if (line === 'waiting') resolveWaiting();
      else if (line.startsWith('{')) {
        const entry = JSON.parse(line);
        heard.set(entry.id, entry.decision);
      }
    }
  });
  return { heard, waiting, exited, kill: () => child.kill('SIGKILL') };
}

/**
 * Runs the scenario; resolves with what was measured, or rejects naming what broke the promise.
 * @param {{ actions: number, receiverKills: number, workerKills: number, workers?: number, retryDelaysMs?: number[], pauseEvery?: number, log?: (line: string) => void }} plan
 */
export async function proveActions(plan) {
  const { actions: count, receiverKills, workerKills, workers: workerCount = 2, log = () => {} } = plan;
  // The service's retries, shortened (6 attempts over 15.5 s by default, instead of 10 h 36 min).
  const { retryDelaysMs = [500, 1000, 2000, 4000, 8000], pauseEvery = 10 } = plan;
  const horizonMs = retryDelaysMs.reduce((a, b) => a + b, 0);
  const redis = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  const queue = `actions-${process.pid}`;
  const prefix = `actions-${process.pid}:`;
  const client = new Redis({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null });
  client.on('error', () => {});
  const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null }, queue, warn: () => {} });
  // Out of order (up to 1.5 s more before a first attempt), one delivery in 5 sent twice, retries shortened;
  // actions of kind `reminder_quick` expire by themselves after 3 s on the emulator's clock.
  const emulator = createEmulator({
    deliveryDelayMs: 0,
    retryDelaysMs,
    maxRecords: Infinity,
    faults: { deliveryJitterMs: 1500, duplicateRate: 0.2 },
    actions: { credits: count + 50, windowsHours: { kinds: { reminder_quick: 3 / 3600 } } },
  });
  const port = await freePort();
  const spread = Math.max(2, Math.floor((2 * count) / Math.max(1, 2 * receiverKills)));
  let receiver;
  const workerProcesses = [];
  const ids = Array.from({ length: count }, (_, index) => `act_${index + 1}`);
  const wait = waiter({ REDIS_PORT: String(redis.port), PREFIX: prefix, IDS: ids.join(','), TIMEOUT_MS: String(600_000) });
  try {
    const api = new Client({ apiKey: 'vdr_actions', baseUrl: 'https://svc.test', fetch: emulator.fetch });
    const webhook = await api.webhooks.create({ url: `http://127.0.0.1:${port}/webhooks`, name: 'actions', event_types: null });
    // The receivers of the inbox's no-loss scenario: a cluster of two storing into the inbox, killing themselves after a durable write.
    receiver = supervised(here('../../inbox/no-loss/receiver.mjs'), { REDIS_PORT: String(redis.port), QUEUE: queue, PORT: String(port), KILLS: String(receiverKills), SPREAD: String(spread), SECRET: webhook.secret }, 'listening');
    await Promise.all([receiver.start(), wait.waiting]);
    for (let index = 0; index < workerCount; index++) {
      const worker = supervised(here('worker.mjs'), { REDIS_PORT: String(redis.port), QUEUE: queue, PREFIX: prefix }, 'working');
      workerProcesses.push(worker);
      await worker.start();
    }
    const started = Date.now();

    // The agents propose, the GP decides in a random order, some left to expire by themselves; workers killed meanwhile.
    const outcomes = ['approve', 'reject', 'expire', 'clock'];
    const planned = new Map();
    for (const id of ids) {
      const outcome = pick(outcomes);
      const kind = outcome === 'clock' ? 'reminder_quick' : pick(['send_email', 'post_note', 'capital_call', 'transaction']);
      const action = await emulator.actions.propose({ kind, runId: `run_${randomInt(1, Math.ceil(count / 10))}`, proposal: { n: id } });
      if (Number(id.slice(4)) % pauseEvery === 0) await sleep(20); // an agents' pace, not one burst
      if (action.action_id !== id) throw new Error(`the emulator named the action ${action.action_id}, expected ${id}`);
      planned.set(id, outcome);
    }
    const toDecide = ids.filter((id) => planned.get(id) !== 'clock').sort(() => Math.random() - 0.5);
    let workerKillsDone = 0;
    const killedAt = new Map();
    const killEvery = Math.max(1, Math.floor(toDecide.length / Math.max(1, workerKills)));
    for (const [index, id] of toDecide.entries()) {
      const outcome = planned.get(id);
      if (outcome === 'approve') await emulator.actions.approve(id, { done: id });
      else if (outcome === 'reject') await emulator.actions.reject(id, `no ${id}`);
      else await emulator.actions.expire(id);
      if (index % killEvery === killEvery - 1 && workerKillsDone < workerKills) {
        const worker = workerProcesses[workerKillsDone % workerCount];
        killedAt.set(worker.pid, [...(killedAt.get(worker.pid) ?? []), Date.now()]);
        worker.kill();
        workerKillsDone++;
      }
      if (index % pauseEvery === 0) await sleep(20); // a GP's pace, not one burst
    }
    while (workerKillsDone < workerKills) {
      const worker = workerProcesses[workerKillsDone % workerCount];
      killedAt.set(worker.pid, [...(killedAt.get(worker.pid) ?? []), Date.now()]);
      worker.kill();
      workerKillsDone++;
      await sleep(randomInt(100, 400));
    }
    // The quick ones expire by themselves after 3 s on the emulator's clock.
    await sleep(3500);
    await emulator.settled(horizonMs + 1000);
    // Every delivery answered 2xx by a receiver, or its retries spent (then the receivers were down too long for this plan).
    const answered = new Set(emulator.deliveries.filter((attempt) => attempt.ok).map((attempt) => attempt.deliveryId));
    const unanswered = new Set(emulator.deliveries.filter((attempt) => !answered.has(attempt.deliveryId)).map((attempt) => attempt.deliveryId));
    if (unanswered.size) throw new Error(`the receivers never answered 2xx for ${unanswered.size} deliveries in the retry schedule (${JSON.stringify(retryDelaysMs)}): the scenario's receivers were down too long`);

    // Done once every action is decided in the ledger and each decision's handler is done.
    const reader = createActionLedger({ store: createRedisLedgerStore(client, { prefix, warn: () => {} }) });
    const deadline = Date.now() + 120_000 + count * 50;
    for (;;) {
      const states = await Promise.all(ids.map((id) => Promise.all([reader.get(id), reader.handled(id)])));
      const open = states.filter(([action, handled]) => !action || action.status === 'pending' || !handled.done);
      if (open.length === 0) break;
      if (Date.now() > deadline) throw new Error(`${open.length} actions not decided and handled in time (first: ${JSON.stringify(open[0])}; inbox ${JSON.stringify(await inbox.stats())})`);
      await sleep(200);
    }
    const settledMs = Date.now() - started;
    await reader.close();

    // A restarted process: a fresh connection and ledger read the state.
    const fresh = new Redis({ host: '127.0.0.1', port: redis.port });
    const restarted = createActionLedger({ store: createRedisLedgerStore(fresh, { prefix, warn: () => {} }) });
    const expected = (id) => ({ approve: 'approved', reject: 'rejected', expire: 'expired', clock: 'expired' })[planned.get(id)];
    const wrong = [];
    let repeats = 0;
    const unexplained = [];
    for (const id of ids) {
      const action = await restarted.get(id);
      const mine = emulator.actions.get(id);
      if (action?.status !== expected(id) || mine.status !== expected(id) || action.kind !== mine.kind || (action.status !== 'expired' && action.runId !== mine.run_id)) wrong.push({ id, ledger: action, emulator: mine.status });
      const effects = (await fresh.lrange(`effect:${id}`, 0, -1)).map((line) => {
        const [pid, at, run, status] = line.split(' ');
        return { pid: Number(pid), at: Number(at), run: Number(run), status };
      });
      const handled = await restarted.handled(id);
      if (effects.length === 0 || effects.some((effect) => effect.status !== expected(id))) wrong.push({ id, effects });
      repeats += Math.max(0, effects.length - 1);
      // A repeat only after a kill of the process that ran the one before, and the ledger counts it.
      const explained = effects.slice(1).every((effect, index) => {
        const before = effects[index];
        return effect.run > before.run && (killedAt.get(before.pid) ?? []).some((at) => at >= before.at && at <= effect.at);
      });
      if (!explained || handled.runs < effects.length) unexplained.push({ id, effects, handled });
    }
    // The waiter, in its own process, resolved for every action with its decision.
    await Promise.race([wait.exited, sleep(10_000)]);
    const notHeard = ids.filter((id) => wait.heard.get(id)?.status !== expected(id));
    const credits = await restarted.credits();
    const [earlyDecisions, lateProposals, duplicates] = (await fresh.mget('count:early-decision', 'count:late-proposal', 'count:duplicate')).map(Number);
    await restarted.close();
    fresh.disconnect();
    const result = {
      actions: count,
      deliveries: emulator.deliveries.length,
      receiverKills: receiver.kills,
      workerKills: workerKillsDone,
      earlyDecisions,
      lateProposals,
      duplicates,
      wrong: wrong.length,
      repeats,
      unexplainedRepeats: unexplained.length,
      notHeard: notHeard.length,
      creditsLow: credits.low,
      balance: credits.balance,
      settledMs,
    };
    log(`result: ${JSON.stringify(result)}`);
    if (wrong.length) throw new Error(`${wrong.length} actions ended wrong (first: ${JSON.stringify(wrong[0])})`);
    if (unexplained.length) throw new Error(`${unexplained.length} handlers ran again with no kill before, or uncounted (first: ${JSON.stringify(unexplained[0])}; kills ${JSON.stringify([...killedAt])})`);
    if (notHeard.length) throw new Error(`the waiter did not hear ${notHeard.length} decisions (first: ${notHeard[0]}: ${JSON.stringify(wait.heard.get(notHeard[0]))})`);
    return result;
  } finally {
    wait.kill();
    await receiver?.stop();
    for (const worker of workerProcesses) await worker.stop();
    await inbox.close().catch(() => {});
    client.disconnect();
    await emulator.close();
    await redis.stop();
    redis.remove();
  }
}
