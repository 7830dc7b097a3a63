// bullmqInbox against a real redis-server: stored once per delivery id, run with retries, dead
// letters kept and replayed, the Redis configuration checked before anything is stored.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { bullmqInbox, type BullmqInbox, type InboxEntry, type InboxOutcome } from '../../src/inbox/index.js';
import type { WebhookEvent } from '../../src/webhooks/index.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from './redis.js';

reportMissingRedis();

let sequence = 0;
/** A stored delivery as a receiver would put it (the body is a delivery envelope). */
function entry(deliveryId = `d-${++sequence}`, data: Record<string, unknown> = { room_id: 1, document_id: sequence, filename: 'memo.pdf', uploader_id: 3 }): InboxEntry {
  const body = JSON.stringify({ event: 'document.uploaded', version: '1.0', delivery_id: deliveryId, timestamp: new Date().toISOString(), data });
  return { deliveryId, kind: 'document.uploaded', body, receivedAt: Date.now() };
}

/** Resolves once `check()` is true, polling every 20 ms, or rejects after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!hasRedis)('bullmqInbox on a real redis-server (appendonly yes)', () => {
  let redis: TestRedis;
  let queueIndex = 0;
  const opened: Array<{ close(): Promise<void> }> = [];
  const open = (options: Partial<Parameters<typeof bullmqInbox>[0]> = {}): BullmqInbox => {
    const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: redis.port }, queue: `q${++queueIndex}`, warn: () => {}, ...options });
    opened.push(inbox);
    return inbox;
  };
  beforeAll(async () => {
    redis = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  });
  afterEach(async () => {
    for (const closable of opened.splice(0).reverse()) await closable.close();
  });
  afterAll(async () => {
    await redis?.stop();
    redis?.remove();
  });

  test('put() stores a delivery once per delivery_id: the service\'s retry adds nothing', async () => {
    const inbox = open();
    const first = entry('retried-delivery');
    await inbox.put(first);
    await inbox.put({ ...first, receivedAt: first.receivedAt + 60_000 });
    await inbox.put(entry('another'));
    expect(await inbox.stats()).toEqual({ waiting: 2, active: 0, delayed: 0, completed: 0, dead: 0 });
  });

  test('process(on) runs on() with the typed event, once per delivery, and reports it processed', async () => {
    const inbox = open();
    const seen: WebhookEvent[] = [];
    const outcomes: InboxOutcome[] = [];
    await inbox.put(entry('a:b%3Ac', { room_id: 7, document_id: 8, filename: 'ä.pdf', uploader_id: 9 }));
    const worker = inbox.process((event) => void seen.push(event), { onOutcome: (outcome) => void outcomes.push(outcome) });
    opened.push(worker);
    await until(() => outcomes.length === 1);
    expect(seen).toHaveLength(1);
    const [event] = seen;
    expect(event?.event === 'document.uploaded' && event.data.filename).toBe('ä.pdf');
    // A delivery id with BullMQ's separator and an escape in it comes back exactly.
    expect(outcomes).toEqual([{ deliveryId: 'a:b%3Ac', kind: 'document.uploaded', outcome: 'processed', attempt: 1 }]);
    expect(await inbox.stats()).toMatchObject({ waiting: 0, completed: 1, dead: 0 });
    // Processed and kept: the service's late retry of it is stored no second time and not run again.
    await inbox.put(entry('a:b%3Ac'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toHaveLength(1);
    expect(await inbox.stats()).toMatchObject({ waiting: 0, completed: 1 });
  });

  test('a delivery whose on() always throws is retried `attempts` times with the backoff, then kept as a dead letter', async () => {
    const inbox = open();
    const runs: number[] = [];
    const outcomes: InboxOutcome[] = [];
    await inbox.put(entry('always-fails'));
    await inbox.put(entry('fine'));
    const worker = inbox.process(
      (event) => {
        if (event.delivery_id === 'always-fails') {
          runs.push(Date.now());
          throw new Error(`refused by the CRM (run ${runs.length})`);
        }
      },
      { attempts: 3, backoff: { type: 'fixed', delay: 150 }, onOutcome: (outcome) => void outcomes.push(outcome) },
    );
    opened.push(worker);
    await until(async () => (await inbox.stats()).dead === 1);
    expect(runs).toHaveLength(3);
    // The backoff is the worker's: about 150 ms between runs.
    expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(140);
    expect(runs[2]! - runs[1]!).toBeGreaterThanOrEqual(140);
    expect(outcomes.filter((o) => o.deliveryId === 'always-fails').map((o) => [o.outcome, o.attempt])).toEqual([
      ['retried', 1],
      ['retried', 2],
      ['dead', 3],
    ]);
    const dead = await inbox.deadLetters();
    expect(dead).toEqual([
      { deliveryId: 'always-fails', kind: 'document.uploaded', attempts: 3, lastError: 'refused by the CRM (run 3)', failedAt: expect.any(Number), receivedAt: expect.any(Number) },
    ]);
    expect(await inbox.stats()).toMatchObject({ completed: 1, dead: 1, waiting: 0, delayed: 0 });
  });

  test('replay(id) runs a dead letter once more, its attempts afresh; replay({ all: true }) every dead letter', async () => {
    const inbox = open();
    let failing = true;
    const processed: string[] = [];
    for (const id of ['x1', 'x2', 'x3']) await inbox.put(entry(id));
    const worker = inbox.process(
      (event) => {
        if (failing) throw new Error('down');
        processed.push(event.delivery_id);
      },
      { attempts: 1 },
    );
    opened.push(worker);
    await until(async () => (await inbox.stats()).dead === 3);
    failing = false;
    expect(await inbox.replay('x2')).toEqual(['x2']);
    await until(() => processed.length === 1);
    expect(processed).toEqual(['x2']);
    expect((await inbox.deadLetters()).map((d) => d.deliveryId).sort()).toEqual(['x1', 'x3']);
    expect((await inbox.replay({ all: true })).sort()).toEqual(['x1', 'x3']);
    await until(() => processed.length === 3);
    expect(await inbox.stats()).toMatchObject({ dead: 0, completed: 3 });
    // Replayed on purpose past deduplication: a processed delivery runs again, once.
    expect(await inbox.replay('x2')).toEqual(['x2']);
    await until(() => processed.length === 4);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processed.filter((id) => id === 'x2')).toHaveLength(2);
    await expect(inbox.replay('never-stored')).rejects.toThrow(/no delivery "never-stored" in the inbox/);
  });

  test('close() lets the delivery being run finish before it resolves', async () => {
    const inbox = open();
    let finished = false;
    await inbox.put(entry('slow'));
    const worker = inbox.process(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      finished = true;
    });
    await until(async () => (await inbox.stats()).active === 1);
    await worker.close();
    expect(finished).toBe(true);
    expect(await inbox.stats()).toMatchObject({ active: 0, completed: 1 });
  });

  test('an observer that throws changes no outcome', async () => {
    const inbox = open();
    await inbox.put(entry('observed'));
    const worker = inbox.process(() => {}, {
      onOutcome: () => {
        throw new Error('metrics down');
      },
    });
    opened.push(worker);
    await until(async () => (await inbox.stats()).completed === 1);
    expect(await inbox.stats()).toMatchObject({ dead: 0, delayed: 0 });
  });

  test('completed entries are kept at least 24 h; a shorter keepCompletedMs is refused at creation', async () => {
    const inbox = open();
    await inbox.put(entry('kept'));
    const queue = new Queue(`q${queueIndex}`, { connection: { host: '127.0.0.1', port: redis.port } });
    try {
      const job = await queue.getJob('d_kept');
      expect(job?.opts.removeOnComplete).toEqual({ age: 86_400 });
      expect(job?.opts.removeOnFail).toBe(false);
    } finally {
      await queue.close();
    }
    expect(() => bullmqInbox({ connection: { port: redis.port }, keepCompletedMs: 3_600_000 })).toThrow(/keepCompletedMs must be at least 86400000/);
  });

  test('a delivery waiting for its backoff is counted and listed as delayed, not waiting nor dead', async () => {
    const inbox = open();
    const runs: string[] = [];
    await inbox.put(entry('later'));
    const worker = inbox.process(
      (event) => {
        runs.push(event.delivery_id);
        throw new Error('CRM down');
      },
      { attempts: 3, backoff: { type: 'fixed', delay: 600_000 } },
    );
    opened.push(worker);
    await until(async () => (await inbox.stats()).delayed === 1);
    expect(await inbox.stats()).toEqual({ waiting: 0, active: 0, delayed: 1, completed: 0, dead: 0 });
    expect((await inbox.list({ status: 'delayed' })).map((item) => [item.deliveryId, item.attempts, item.lastError])).toEqual([['later', 1, 'CRM down']]);
    expect(runs).toEqual(['later']);
  });

  test('bad process() options are refused with the field named', () => {
    const inbox = open();
    expect(() => inbox.process(() => {}, { concurrency: 0 })).toThrow(/concurrency must be a whole number/);
    expect(() => inbox.process(() => {}, { attempts: 1.5 })).toThrow(/attempts must be a whole number/);
  });
});

describe.skipIf(!hasRedis)('bullmqInbox checks the Redis it stores into', () => {
  const servers: TestRedis[] = [];
  afterAll(async () => {
    for (const server of servers) {
      await server.stop();
      server.remove();
    }
  });
  const start = async (args: string[]) => {
    const server = await startTestRedis(args);
    servers.push(server);
    return server;
  };

  test('an eviction policy other than noeviction is refused: nothing is stored, and the worker does not run', async () => {
    const server = await start(['--maxmemory-policy', 'allkeys-lru']);
    const warn = vi.fn();
    const inbox = bullmqInbox({ connection: { port: server.port }, warn, acceptNoPersistence: true });
    try {
      await expect(inbox.put(entry())).rejects.toThrow(/maxmemory-policy allkeys-lru.*set maxmemory-policy noeviction/);
      // A log line names the refusal, not a bare `Error:`.
      await expect(inbox.put(entry())).rejects.toMatchObject({ name: 'NotDurableError' });
      const worker = inbox.process(() => {});
      await expect(worker.ready()).rejects.toThrow(/noeviction/);
      // And said where an operator looks: the worker stopped, with the refusal.
      expect(warn.mock.calls.map(([line]) => String(line))).toContainEqual(expect.stringMatching(/^\[svc-sdk\] inbox: Redis evicts keys under memory pressure \(maxmemory-policy allkeys-lru\)/));
      await worker.close();
      // Nothing was ever stored in this queue: the inbox says so rather than listing zeros.
      await expect(inbox.stats()).rejects.toThrow(/no queue "svc-webhooks" in this Redis/);
    } finally {
      await inbox.close();
    }
  });

  test('a worker on a Redis switched to evicting runs none of what was stored before: refused before it takes any delivery', async () => {
    const server = await start(['--appendonly', 'yes']);
    const admin = new Redis({ host: '127.0.0.1', port: server.port });
    const receiver = bullmqInbox({ connection: { port: server.port }, queue: 'stored-then-evicting', warn: () => {} });
    const workers = bullmqInbox({ connection: { port: server.port }, queue: 'stored-then-evicting', warn: () => {} });
    const seen: string[] = [];
    try {
      await receiver.put(entry('stored-before'));
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const worker = workers.process((event) => void seen.push(event.delivery_id));
      await expect(worker.ready()).rejects.toThrow(/noeviction/);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await worker.close();
      expect(seen).toEqual([]);
      expect(await workers.stats()).toMatchObject({ waiting: 1, active: 0, completed: 0 });
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      admin.disconnect();
      for (const closable of [receiver, workers]) await closable.close();
    }
  });

  test('the receivers ask again once durabilityCheckMs passed: a policy switched to evicting stops the storing, switched back resumes it; within it, the last answer holds', async () => {
    const server = await start(['--appendonly', 'yes']);
    const admin = new Redis({ host: '127.0.0.1', port: server.port });
    const config = (policy: string) => admin.config('SET', 'maxmemory-policy', policy);
    const rechecked = bullmqInbox({ connection: { port: server.port }, queue: 'rechecked', warn: () => {}, durabilityCheckMs: 50 });
    const cached = bullmqInbox({ connection: { port: server.port }, queue: 'cached', warn: () => {} });
    try {
      await rechecked.put(entry());
      await cached.put(entry());
      await config('allkeys-lru');
      // Asked again at its next store once 50 ms passed: refused from then on.
      await until(() => rechecked.put(entry()).then(() => false, (error: Error) => /maxmemory-policy allkeys-lru/.test(error.message)));
      // Within 60 s (the default) the answer Redis gave holds: no INFO per delivery.
      await cached.put(entry());
      await config('noeviction');
      await until(() => rechecked.put(entry()).then(() => true, () => false));
      expect(await cached.stats()).toMatchObject({ waiting: 2 });
    } finally {
      await config('noeviction');
      for (const closable of [rechecked, cached]) await closable.close();
      admin.disconnect();
    }
  });

  test('without an append-only file: one warning naming what could be lost; none once accepted, none with appendonly yes', async () => {
    const plain = await start([]);
    const warn = vi.fn();
    const inbox = bullmqInbox({ connection: { port: plain.port }, warn });
    const accepted = bullmqInbox({ connection: { port: plain.port }, queue: 'accepted', warn });
    const silent = vi.fn();
    const knowingly = bullmqInbox({ connection: { port: plain.port }, queue: 'knowingly', warn: silent, acceptNoPersistence: true });
    const durable = await start(['--appendonly', 'yes']);
    const durableWarn = vi.fn();
    const safe = bullmqInbox({ connection: { port: durable.port }, warn: durableWarn });
    try {
      await inbox.put(entry());
      await inbox.put(entry());
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toMatch(/no append-only file.*lost if it stops.*appendonly yes.*acceptNoPersistence: true/);
      void accepted;
      await knowingly.put(entry());
      expect(silent).not.toHaveBeenCalled();
      await safe.put(entry());
      expect(durableWarn).not.toHaveBeenCalled();
    } finally {
      for (const closable of [inbox, accepted, knowingly, safe]) await closable.close();
    }
  });
});

describe.skipIf(!hasRedis)('bullmqInbox when Redis goes away after it connected, before its first store', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis(['--appendonly', 'yes']);
  });
  afterAll(async () => {
    await redis?.stop();
    redis?.remove();
  });
  /**
   * An inbox connected to Redis (failing fast while it is down, as BullMQ advises for producers: the
   * receiver answers 500 and the service retries) whose Redis then stops: a receiver started just
   * before a Redis restart, which its durability check has not yet asked.
   */
  const connectedThenDown = async (queue: string, warn: (line: string) => void = () => {}) => {
    const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: redis.port, enableOfflineQueue: false, maxRetriesPerRequest: 1 }, queue, warn });
    // Connected: Redis answered (that nothing was stored in this queue yet is what it says).
    await expect(inbox.stats()).rejects.toThrow(/no queue/);
    await redis.stop();
    return inbox;
  };

  test('a put() refused while Redis restarts is not remembered: once Redis is back, put() stores', async () => {
    const inbox = await connectedThenDown('down-then-up');
    try {
      await expect(inbox.put(entry('while-down'))).rejects.toThrow();
      await redis.restart();
      // BullMQ reconnects within about a second; from then on every put() stores.
      await until(() => inbox.put(entry('once-back')).then(() => true, () => false), 15_000);
      await inbox.put(entry('and-after'));
      expect(await inbox.stats()).toMatchObject({ waiting: 2 });
    } finally {
      await inbox.close();
    }
  }, 30_000);

  test('a worker started while Redis restarts runs once Redis is back (its check is asked again), and says so meanwhile', async () => {
    const warn = vi.fn();
    const inbox = await connectedThenDown('worker-down-then-up', warn);
    const seen: string[] = [];
    const worker = inbox.process((event) => void seen.push(event.delivery_id));
    try {
      await until(() => warn.mock.calls.some(([line]) => /inbox worker: Redis could not be checked \(.+\); trying again in 1 s/.test(String(line))));
      // Asked again after 1 s, then after twice as long each time: no hot loop while Redis is away.
      await until(() => warn.mock.calls.some(([line]) => /trying again in 2 s/.test(String(line))), 15_000);
      expect(warn.mock.calls.filter(([line]) => /trying again in 1 s/.test(String(line)))).toHaveLength(1);
      await redis.restart();
      await worker.ready();
      await until(() => inbox.put(entry('run-me')).then(() => true, () => false), 15_000);
      await until(() => seen.includes('run-me'), 15_000);
    } finally {
      await worker.close();
      await inbox.close();
    }
  }, 40_000);

  test('a worker closed while it waits for Redis stops at once, and never runs', async () => {
    const lines: string[] = [];
    const inbox = await connectedThenDown('closed-while-down', (line) => void lines.push(line));
    const worker = inbox.process(() => {});
    try {
      // Closed in its second wait (2 s): the wait ends with the close, not when its timer would have.
      await until(() => lines.some((line) => /inbox worker: Redis could not be checked .*; trying again in 2 s/.test(line)), 5000);
      const closing = Date.now();
      await worker.close();
      await expect(worker.ready()).rejects.toThrow();
      expect(Date.now() - closing).toBeLessThan(500);
      // Its connections' trouble meanwhile: one line, and what was counted said at the close, though it never ran.
      expect(lines.filter((line) => /^\[svc-sdk\] inbox worker: connect ECONNREFUSED/.test(line))).toHaveLength(1);
      expect(lines.at(-1)).toMatch(/^\[svc-sdk\] inbox worker: \d+ more failures? in the last 10 s, not shown \(failureLogIntervalMs\)$/);
    } finally {
      // Closed once reconnected: BullMQ's own close() sends QUIT, which fails fast while Redis is down.
      await redis.restart();
      await until(() => inbox.stats().then(() => true, (error: Error) => /no queue/.test(error.message)), 15_000);
      await inbox.close();
    }
  }, 30_000);
});
