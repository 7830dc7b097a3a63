// The inbox's promise, proven: no delivery lost once the receiver answered 2xx, whatever the
// handler does and however long it is down; `on` at least once per delivery, a second time only
// where a worker died while running it. The service is the emulator (its retry schedule
// shortened); the receiver, the workers and redis-server (append-only, appendfsync always) are
// real processes, killed at random points:
//   1. deliveries arrive while no worker runs, for longer than the service's whole retry horizon;
//      the receiver SIGKILLs itself at random points between the durable write and its answer,
//      and redis-server is SIGKILLed and restarted;
//   2. workers start and are SIGKILLed at random points (and redis-server again);
//   3. the check: every delivery_id in the effect ledger, each repeat after a kill of the worker
//      that ran it before or a Redis restart (nothing else may run on() twice), dead
//      letters exactly the deliveries whose on() always throws; then each is replayed and
//      processed once.
// Used by test/inbox/no-loss.test.ts: scaled to a minute, or the full run with INBOX_PROOF=full.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { Client } from 'svc-sdk';
import { bullmqInbox } from 'svc-sdk/inbox';
import { createEmulator } from 'svc-sdk/testing';
import { freePort } from '../../webhooks/redis-server.ts';
import { startTestRedis } from '../redis.ts';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const randomInt = (min, max) => min + Math.floor(Math.random() * (max - min + 1));

/** A child process kept running: restarted whenever it exits, until stopped. */
function supervised(script, env, ready) {
  let child;
  let stopped = false;
  let lives = 0;
  let kills = 0;
  const start = (extra = {}) =>
    new Promise((resolve, reject) => {
      lives++;
      child = spawn(process.execPath, [here(script)], { env: { ...process.env, ...env, ...extra() }, stdio: ['ignore', 'pipe', 'inherit'] });
      const current = child;
      current.stdout.on('data', (chunk) => {
        const text = String(chunk);
        if (text.includes(ready)) resolve();
        kills += text.split('killed\n').length - 1;
      });
      current.once('exit', (code, signal) => {
        if (process.env.NO_LOSS_DEBUG) console.error(`${new Date().toISOString()} ${script} exited (${signal ?? code})`);
        reject(new Error(`${script} exited before it was ready`));
        if (!stopped && current === child) setTimeout(() => void start(extra).catch(() => {}), 50);
      });
    });
  return {
    start,
    get lives() {
      return lives;
    },
    /** `killed` lines the process printed (the receivers' cluster primary prints one per kill). */
    get kills() {
      return kills;
    },
    /** The running child's pid. */
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

/**
 * Runs the scenario; resolves with what was measured, or rejects naming what broke the promise.
 * @param {{ deliveries: number, receiverKills: number, workerKills: number, redisRestarts: number, poisonEvery: number, workers?: number, retryDelaysMs?: number[], perSecond?: number, log?: (line: string) => void }} plan
 */
export async function proveNoLoss(plan) {
  const { deliveries, receiverKills, workerKills, redisRestarts, poisonEvery, workers: workerCount = 2, log = () => {} } = plan;
  // The service's retries, shortened (6 attempts over 15.5 s by default, instead of 10 h 36 min), and the sender's pace.
  const { retryDelaysMs = [500, 1000, 2000, 4000, 8000], perSecond = 100 } = plan;
  const redis = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  const queue = `no-loss-${process.pid}`;
  const ledger = new Redis({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null });
  ledger.on('error', () => {});
  const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null }, queue, warn: () => {} });
  // Every attempt kept (the emulator keeps 10 000 by default): the check reads them all.
  const emulator = createEmulator({ deliveryDelayMs: 0, retryDelaysMs, maxRecords: Infinity });
  const horizonMs = retryDelaysMs.reduce((a, b) => a + b, 0);
  const port = await freePort();
  // Each receiver process dies after a random number of stored deliveries, until the kills are spent
  // (spent within about the first half of the deliveries, so every kill happens).
  const spread = Math.max(2, Math.floor(deliveries / Math.max(1, 2 * receiverKills)));
  const receiver = supervised('receiver.mjs', { REDIS_PORT: String(redis.port), QUEUE: queue, PORT: String(port), KILLS: String(receiverKills), SPREAD: String(spread) }, 'listening');
  const workerProcesses = [];
  const redisRestart = async () => {
    await redis.stop(true);
    await sleep(randomInt(50, 300));
    await redis.restart();
  };
  try {
    const client = new Client({ apiKey: 'vdr_no_loss', baseUrl: 'https://svc.test', fetch: emulator.fetch });
    const webhook = await client.webhooks.create({ url: `http://127.0.0.1:${port}/webhooks`, name: 'no-loss', event_types: ['document.uploaded'] });
    Object.assign(receiver, { secret: webhook.secret });
    await receiver.start(() => ({ SECRET: webhook.secret }));

    // 1. Deliveries while no worker runs; Redis restarted at random points among them.
    const started = Date.now();
    const restartAt = new Set(Array.from({ length: Math.ceil(redisRestarts / 2) }, () => randomInt(1, deliveries)));
    const ids = [];
    const poisoned = new Set();
    for (let n = 1; n <= deliveries; n++) {
      const poison = n % poisonEvery === 0;
      const [scheduled] = await emulator.trigger('document.uploaded', { room_id: 1, document_id: n, filename: `doc-${n}.pdf`, uploader_id: 1, ...(poison && { poison: true }) });
      ids.push(scheduled.deliveryId);
      if (poison) poisoned.add(scheduled.deliveryId);
      if (restartAt.has(n)) await redisRestart();
      if (n % 5 === 0) await sleep(5000 / perSecond); // a sender's pace, not one burst
    }
    // Every delivery answered 2xx by the receiver, or its retries spent (then the check below fails).
    await emulator.settled(horizonMs + 1000);
    const answered = new Set(emulator.deliveries.filter((attempt) => attempt.ok).map((attempt) => attempt.deliveryId));
    const unanswered = ids.filter((id) => !answered.has(id));
    if (unanswered.length) {
      const why = new Map();
      for (const attempt of emulator.deliveries) {
        const key = attempt.ok ? 'ok' : String(attempt.status ?? attempt.error);
        why.set(key, (why.get(key) ?? 0) + 1);
      }
      // What answers on the receiver's port now (an unsigned POST: our receiver says 401 missing_signature), for the reader of a failure.
      const probe = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body: '{}' }).then(
        async (response) => `${response.status} ${(await response.text()).slice(0, 200)}`,
        (error) => `no answer (${error.cause?.code ?? error.message})`,
      );
      throw new Error(`the receiver never answered 2xx for ${unanswered.length} deliveries (first: ${unanswered[0]}; attempts ${JSON.stringify(Object.fromEntries(why))}; an unsigned POST now: ${probe}): the scenario's receiver was down too long`);
    }
    // Workers stay down for the whole retry horizon after the last delivery.
    await sleep(horizonMs);
    const phase1Ms = Date.now() - started;
    const stored = await inbox.stats();
    log(`phase 1: ${deliveries} deliveries answered in ${phase1Ms} ms with no worker; receivers killed ${receiver.kills}; inbox ${JSON.stringify(stored)}`);

    // 2. Workers, SIGKILLed at random points; Redis restarted again.
    for (let index = 0; index < workerCount; index++) {
      const worker = supervised('worker.mjs', { REDIS_PORT: String(redis.port), QUEUE: queue }, 'working');
      workerProcesses.push(worker);
      await worker.start(() => ({}));
    }
    let workerKillsDone = 0;
    let restartsLeft = redisRestarts - restartAt.size;
    // When each worker process was killed, and when Redis went down in this phase: the causes a repeat may have.
    const killedAt = new Map();
    const redisDownAt = [];
    const deadline = Date.now() + 60_000 + deliveries * 10;
    let idleSince;
    for (;;) {
      const stats = await inbox.stats().catch(() => undefined);
      // Done once nothing is left to run, for a second (a killed worker's delivery is active until its lock expires).
      const idle = stats && stats.waiting + stats.active + stats.delayed === 0 && workerKillsDone >= workerKills;
      if (!idle) idleSince = undefined;
      else if ((idleSince ??= Date.now()) < Date.now() - 1000 || stats.completed + stats.dead === deliveries) break;
      if (Date.now() > deadline) throw new Error(`the workers did not finish: ${JSON.stringify(stats)}`);
      if (workerKillsDone < workerKills && Math.random() < 0.5) {
        const worker = workerProcesses[workerKillsDone % workerCount];
        killedAt.set(worker.pid, Date.now());
        worker.kill();
        workerKillsDone++;
      } else if (restartsLeft > 0 && Math.random() < 0.2) {
        redisDownAt.push(Date.now());
        await redisRestart();
        restartsLeft--;
      }
      await sleep(randomInt(20, 120));
    }
    const runs = await ledgerRuns(ledger, ids);
    const processed = new Map([...runs].map(([id, list]) => [id, list.length]));
    const missing = ids.filter((id) => !poisoned.has(id) && !processed.get(id));
    const repeats = [...processed.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    // on() runs again only when the run before it was not recorded done: its worker was killed after it (its lock
    // then expires and another worker takes it), or Redis went down while it ran or after it (BullMQ could not
    // record it, or its lock of lockDuration, 2 s, lapsed meanwhile: hence the 5 s before the run's own record).
    // Any other repeat is a delivery run twice: stored twice, or handed to two workers at once.
    const unexplained = [...runs].filter(([, list]) =>
      list.slice(1).some((run, index) => {
        const before = list[index];
        const killed = killedAt.get(before.pid);
        return !(killed >= before.at && killed <= run.at) && !redisDownAt.some((at) => at >= before.at - 5000 && at <= run.at);
      }),
    );
    const dead = (await inbox.deadLetters()).map((letter) => letter.deliveryId).sort();
    const expectedDead = [...poisoned].sort();
    log(`phase 2: workers killed ${workerKillsDone} times, Redis restarted ${redisRestarts - restartsLeft} times; missing ${missing.length}, repeats ${repeats}, dead ${dead.length}`);
    if (missing.length) throw new Error(`${missing.length} deliveries never processed (first: ${missing[0]})`);
    if (unexplained.length) {
      const [id, list] = unexplained[0];
      throw new Error(`on() ran again for ${unexplained.length} deliveries with no worker killed nor Redis restarted after the run before (first: ${id}, runs ${JSON.stringify(list)}; workers killed ${JSON.stringify([...killedAt])}; Redis down at ${JSON.stringify(redisDownAt)})`);
    }
    if (JSON.stringify(dead) !== JSON.stringify(expectedDead)) throw new Error(`dead letters ${dead.length} are not the ${expectedDead.length} poisoned deliveries`);
    if ([...poisoned].some((id) => processed.get(id))) throw new Error('a poisoned delivery was processed');

    // 3. Replay the dead letters, now curable: each processed once.
    await ledger.set('poison-cured', '1');
    const replayed = (await inbox.replay({ all: true })).sort();
    if (JSON.stringify(replayed) !== JSON.stringify(expectedDead)) throw new Error(`replayed ${replayed.length}, expected ${expectedDead.length}`);
    const replayDeadline = Date.now() + 60_000;
    for (;;) {
      const stats = await inbox.stats();
      if (stats.waiting + stats.active + stats.delayed === 0 && stats.dead === 0) break;
      if (Date.now() > replayDeadline) throw new Error(`the replays did not finish: ${JSON.stringify(stats)}`);
      await sleep(50);
    }
    const afterReplay = await ledgerRuns(ledger, [...poisoned]);
    const replayedOnce = [...afterReplay.values()].filter((list) => list.length === 1).length;
    if (replayedOnce !== poisoned.size) throw new Error(`of ${poisoned.size} replayed dead letters, ${replayedOnce} were processed exactly once`);
    const result = {
      deliveries,
      // Receivers SIGKILLed right after a durable write, as the cluster's primary counted them.
      receiverKills: receiver.kills,
      workerKills: workerKillsDone,
      redisRestarts: redisRestarts - restartsLeft,
      missing: missing.length,
      repeats,
      unexplainedRepeats: unexplained.length,
      dead: dead.length,
      replayedOnce,
      serviceAttempts: emulator.deliveries.length,
      phase1Ms,
    };
    log(`result: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await receiver.stop();
    for (const worker of workerProcesses) await worker.stop();
    await inbox.close().catch(() => {});
    ledger.disconnect();
    await emulator.close();
    await redis.stop();
    redis.remove();
  }
}

/** The runs of on() recorded in ledger:<id> for each id: which process ran it, and when (none when absent). */
async function ledgerRuns(ledger, ids) {
  const runs = new Map();
  for (let start = 0; start < ids.length; start += 500) {
    const slice = ids.slice(start, start + 500);
    const pipeline = ledger.pipeline();
    for (const id of slice) pipeline.lrange(`ledger:${id}`, 0, -1);
    const answers = await pipeline.exec();
    slice.forEach((id, index) => {
      const [error, entries] = answers[index];
      if (error) throw error;
      // One run per run id: ioredis resends a command whose answer a Redis restart cut off, which Redis may
      // have carried out already (the same RPUSH twice, not on() twice).
      const once = [...new Set(entries)];
      runs.set(id, once.map((entry) => ({ pid: Number(entry.split(' ')[0]), at: Number(entry.split(' ')[1]) })));
    });
  }
  return runs;
}
