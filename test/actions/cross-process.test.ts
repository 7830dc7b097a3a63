// waitForDecision in another process: a child process (the built package, over the Redis store)
// waits for actions this process decides, some decided before it started (however long ago the
// decision arrived), the rest after it is waiting. Its polling is set to a minute, so only the
// store's notifications can tell it within the test's time; with notifications impossible (a
// subscriber connection that never connects), the polling alone must.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionLedger, createRedisLedgerStore } from '../../src/actions/index.js';
import { built } from './built.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from '../inbox/redis.js';
import { approved, expired, proposed, rejected } from './events.js';

reportMissingRedis();

const WAITER = fileURLToPath(new URL('cross-process/waiter.mjs', import.meta.url));

/** Starts the waiter; resolves once it is waiting, with the lines it prints next. */
function startWaiter(env: Record<string, string>) {
  const child = spawn(process.execPath, [WAITER], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let buffer = '';
  const done = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`waiter exited with ${code}`))));
  });
  const waiting = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const line of parts) {
        if (line === 'waiting') resolve();
        else lines.push(line);
      }
    });
  });
  return { child, lines, waiting, done };
}

describe.skipIf(!hasRedis || !built)('waitForDecision in another process', () => {
  let redis: TestRedis;
  let client: Redis;
  beforeAll(async () => {
    redis = await startTestRedis();
    client = new Redis({ host: '127.0.0.1', port: redis.port });
  });
  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
    redis?.remove();
  });

  it('resolves in the child for decisions made before it started and after, told by the notifications (its polling is a minute)', async () => {
    const prefix = 'cross:';
    const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix, acceptNoPersistence: true }) });
    const ids = Array.from({ length: 30 }, (_, index) => `act-${index}`);
    const decide = [approved, rejected, expired];
    for (const id of ids) await ledger.record(proposed(id));
    for (const id of ids.slice(0, 10)) await ledger.record(decide[Number(id.slice(4)) % 3]!(id));
    const waiter = startWaiter({ REDIS_PORT: String(redis.port), PREFIX: prefix, IDS: ids.join(','), POLL_MS: '60000', TIMEOUT_MS: '20000' });
    await waiter.waiting;
    const decidedAt = new Map<string, number>();
    for (const id of ids.slice(10)) {
      decidedAt.set(id, Date.now());
      await ledger.record(decide[Number(id.slice(4)) % 3]!(id));
    }
    await waiter.done;
    const heard = new Map(waiter.lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { id: string; decision: { status: string }; at: number }).map((entry) => [entry.id, entry]));
    expect([...heard.keys()].sort()).toEqual([...ids].sort());
    for (const id of ids) expect(heard.get(id)?.decision.status).toBe(['approved', 'rejected', 'expired'][Number(id.slice(4)) % 3]);
    // Told by the channel, not the minute's poll: each within seconds of its decision.
    for (const [id, at] of decidedAt) expect(heard.get(id)!.at - at).toBeLessThan(5000);
    await ledger.close();
  });

  it('resolves by polling alone when no notification can come (the subscriber never connects)', async () => {
    const prefix = 'cross-poll:';
    const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix, acceptNoPersistence: true }) });
    await ledger.record(proposed('p1'));
    const deaf = createActionLedger({
      // A subscriber on a port nothing listens on: the waits can only poll.
      store: createRedisLedgerStore(client, { prefix, acceptNoPersistence: true, warn: () => {}, subscriber: Object.assign(new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, retryStrategy: () => null }), { subscribe: () => Promise.reject(new Error('no connection')) }) }),
      pollMs: 100,
    });
    const waiting = deaf.waitForDecision('p1', { timeoutMs: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    await ledger.record(approved('p1'));
    expect(await waiting).toEqual({ status: 'approved', result: { sent: true } });
    await Promise.all([ledger.close(), deaf.close()]);
  });
});
