// inbox.process(on) against a real redis-server, where a worker used to get stuck or stay silent: a
// failing handler logged (rate-limited, redacted), dead letters told with their delivery, a handler
// that never settles at close(), a per-kind rate limit, a stored body edited in Redis, the
// durability check asked again while running, and Redis going away under a running worker.
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import { bullmqInbox, type DeadLetterNotice, type InboxOutcome } from '../../src/inbox/index.js';
import { createWebhookHandler, toNodeListener } from '../../src/webhooks/index.js';
import { deliver, envelope, SECRET, serve } from '../webhooks/wire.js';
import { onTestRedis } from './on-redis.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from './redis.js';
import { entry, sleep, until } from './support.js';

reportMissingRedis();

describe.skipIf(!hasRedis)('inbox workers on a real redis-server', () => {
  const inboxes = onTestRedis({ queuePrefix: 'w' });
  const { open, opened } = inboxes;

  test('a failing handler is logged with its delivery_id and error, one line per interval (the rest counted), credentials hidden', async () => {
    const lines: string[] = [];
    const inbox = open({ warn: (line) => void lines.push(line) });
    for (const id of ['f1', 'f2', 'f3', 'f4', 'f5']) await inbox.put(entry(id));
    const worker = inbox.process(
      () => {
        throw new Error('CRM refused: POST redis://:hunter2@crm.internal:6379 and https://bot:s3cret@crm.test/api?token=abc123 with whsec_abcdef0123');
      },
      // An interval the five failures fall within even on a loaded machine (they take a few hundred ms).
      { attempts: 1, failureLogIntervalMs: 3000, concurrency: 5 },
    );
    opened.push(worker);
    await until(async () => (await inbox.stats()).dead === 5);
    const failures = () => lines.filter((line) => line.includes('inbox worker'));
    // The first failure at once, with its id, kind, attempt and error.
    expect(failures()[0]).toMatch(/^\[svc-sdk\] inbox worker: delivery f\d \(document\.uploaded\) failed on attempt 1 of 1: CRM refused: .*now a dead letter/);
    expect(failures()).toHaveLength(1);
    // The four others within the interval: counted, and said once it is over, with no failure after.
    await until(() => failures().length === 2, 10_000);
    expect(failures()[1]).toBe('[svc-sdk] inbox worker: 4 more failures in the last 3 s, not shown (failureLogIntervalMs)');
    const all = lines.join('\n');
    for (const secret of ['hunter2', 's3cret', 'abc123', 'whsec_abcdef0123']) expect(all).not.toContain(secret);
    expect(all).toContain('redis://[redacted]:[redacted]@crm.internal:6379');
  });

  test('onDeadLetter hears each dead letter with the delivery it holds; what it throws changes nothing', async () => {
    const inbox = open();
    const notices: DeadLetterNotice[] = [];
    await inbox.put(entry('doomed', { room_id: 42, document_id: 7, filename: 'q3.xlsx', uploader_id: 1 }));
    await inbox.put(entry('fine'));
    const worker = inbox.process(
      (event) => {
        if (event.delivery_id === 'doomed') throw new Error('schema drift');
      },
      {
        attempts: 2,
        backoff: 10,
        onDeadLetter: (notice) => {
          notices.push(notice);
          throw new Error('pager down');
        },
      },
    );
    opened.push(worker);
    await until(() => notices.length === 1);
    await until(async () => (await inbox.stats()).completed === 1);
    const [notice] = notices;
    expect(notice).toMatchObject({ deliveryId: 'doomed', kind: 'document.uploaded', attempts: 2, lastError: 'schema drift', failedAt: expect.any(Number), receivedAt: expect.any(Number) });
    expect(notice?.event?.event === 'document.uploaded' && notice.event.data.filename).toBe('q3.xlsx');
    expect(await inbox.deadLetters()).toHaveLength(1);
  });

  test('close() resolves within closeGraceMs with a handler that never settles: it is aborted, and the delivery runs on another worker', async () => {
    const lines: string[] = [];
    const outcomes: InboxOutcome[] = [];
    const inbox = open({ warn: (line) => void lines.push(line) });
    await inbox.put(entry('hangs'));
    await inbox.put(entry('quick'));
    let signal: AbortSignal | undefined;
    let finishedSignal: AbortSignal | undefined;
    const stuck = inbox.process((event, context) => {
      if (event.delivery_id === 'quick') {
        finishedSignal = context.signal;
        return;
      }
      signal = context.signal;
      return new Promise(() => {});
    }, { closeGraceMs: 300, concurrency: 2, failureLogIntervalMs: 0, onOutcome: (outcome) => void outcomes.push(outcome) });
    await until(async () => (await inbox.stats()).active === 1 && finishedSignal !== undefined);
    const closing = Date.now();
    await stuck.close();
    expect(Date.now() - closing).toBeLessThan(3000);
    expect(signal?.aborted).toBe(true);
    // The handler is told why (what a fetch given the signal rejects with).
    expect((signal?.reason as Error).message).toBe('[svc-sdk] inbox worker: closed, closeGraceMs passed: this delivery runs again on another worker');
    // A run that had finished is not aborted.
    expect(finishedSignal?.aborted).toBe(false);
    // Handed back, not failed: no outcome told for it, no failure said.
    expect(outcomes.map((outcome) => [outcome.deliveryId, outcome.outcome])).toEqual([['quick', 'processed']]);
    expect(lines.filter((line) => line.includes('hangs'))).toEqual([]);
    // Handed back at once (not left to its lock's expiry) and no attempt spent.
    expect(await inbox.stats()).toMatchObject({ active: 0, waiting: 1, dead: 0, completed: 1 });
    const seen: number[] = [];
    const next = inbox.process((_event, context) => void seen.push(context.attempt));
    opened.push(next);
    await until(() => seen.length === 1);
    expect(seen).toEqual([1]);
  });

  test('a per-kind rate limit: at most max deliveries of that kind started per window across workers, the others wait (no attempt spent), other kinds unaffected', async () => {
    const inbox = open();
    const started: Array<{ kind: string; at: number }> = [];
    for (let i = 0; i < 5; i++) await inbox.put(entry(`up-${i}`));
    for (let i = 0; i < 3; i++) await inbox.put(entry(`ping-${i}`, {}, 'ping.test'));
    const options = { concurrency: 4, rateLimit: { 'document.uploaded': { max: 2, durationMs: 700 } } };
    const handler = (event: { event: string }) => void started.push({ kind: event.event, at: Date.now() });
    opened.push(inbox.process(handler, options), inbox.process(handler, options));
    await until(() => started.length === 8, 8000);
    const uploads = started.filter((run) => run.kind === 'document.uploaded').sort((a, b) => a.at - b.at);
    // BullMQ's limiter counts in windows of durationMs that start with the first job, not on the clock's
    // multiples: 2 may start at the end of one window and 2 more at the start of the next. What it does
    // promise: any 2 × max + 1 starts in a row span three windows, so the first and last are a window apart.
    expect(uploads).toHaveLength(5);
    for (let first = 0; first + 4 < uploads.length; first++) expect(uploads[first + 4]!.at - uploads[first]!.at).toBeGreaterThanOrEqual(700 - 50);
    // The pings did not wait for the uploads' windows.
    const pingsDone = Math.max(...started.filter((run) => run.kind === 'ping.test').map((run) => run.at));
    expect(pingsDone).toBeLessThan(Math.max(...uploads.map((run) => run.at)));
    const listed = await inbox.list({ kind: 'document.uploaded' });
    expect(listed.map((item) => item.attempts)).toEqual([1, 1, 1, 1, 1]);
  });

  test('a stored body edited in Redis never reaches on(): a dead letter saying so (told to onDeadLetter)', async () => {
    const inbox = open();
    const seen: string[] = [];
    const notices: DeadLetterNotice[] = [];
    await inbox.put(entry('edited', { room_id: 1, document_id: 2, filename: 'a.pdf', uploader_id: 3 }));
    await inbox.put(entry('swapped'));
    await inbox.put(entry('intact'));
    const key = `bull:${inboxes.queue}:d_edited`;
    const data = JSON.parse((await inboxes.admin.hget(key, 'data'))!) as { body: string };
    await inboxes.admin.hset(key, 'data', JSON.stringify({ ...data, body: data.body.replace('a.pdf', 'evil.exe') }));
    // A body of another delivery, digest and all, stored under this id: caught too.
    const other = JSON.parse((await inboxes.admin.hget(`bull:${inboxes.queue}:d_intact`, 'data'))!) as object;
    await inboxes.admin.hset(`bull:${inboxes.queue}:d_swapped`, 'data', JSON.stringify(other));
    // An alert that rejects (a pager down) changes nothing either, and is no unhandled rejection.
    const worker = inbox.process((event) => void seen.push(event.delivery_id), {
      onDeadLetter: async (notice) => {
        notices.push(notice);
        throw new Error('pager down');
      },
    });
    opened.push(worker);
    await until(async () => (await inbox.stats()).dead === 2);
    expect(seen).toEqual(['intact']);
    const dead = await inbox.deadLetters();
    expect(dead.find((letter) => letter.deliveryId === 'edited')?.lastError).toMatch(/delivery edited not run: its body, kind or delivery id no longer match the digest/);
    expect(dead.find((letter) => letter.deliveryId === 'swapped')?.lastError).toMatch(/delivery swapped not run/);
    expect(notices.map((notice) => notice.deliveryId).sort()).toEqual(['edited', 'swapped']);
  });

  test('with integrityKey, an entry whose digest was recomputed without the key (or removed) is refused as well', async () => {
    const inbox = open({ integrityKey: 'k'.repeat(32) });
    const seen: string[] = [];
    await inbox.put(entry('keyed'));
    await inbox.put(entry('stripped'));
    const key = `bull:${inboxes.queue}:d_stripped`;
    const data = JSON.parse((await inboxes.admin.hget(key, 'data'))!) as { body: string; receivedAt: number };
    await inboxes.admin.hset(key, 'data', JSON.stringify({ body: data.body, receivedAt: data.receivedAt }));
    opened.push(inbox.process((event) => void seen.push(event.delivery_id)));
    await until(async () => (await inbox.stats()).dead === 1);
    expect(seen).toEqual(['keyed']);
    expect((await inbox.deadLetters())[0]?.lastError).toMatch(/stripped not run: it has no digest/);
    expect(() => bullmqInbox({ connection: { port: inboxes.redis.port }, integrityKey: 'short' })).toThrow(/integrityKey must be a string of at least 16 characters/);
  });

  test('the durability check is asked again: a policy switched to allkeys-lru while running stops the storing (answered 500, the service retries), and switching back resumes it', async () => {
    const lines: string[] = [];
    const inbox = open({ durabilityCheckMs: 100, warn: (line) => void lines.push(line) });
    const worker = inbox.process(() => {});
    opened.push(worker);
    await worker.ready();
    // The refused put reaches onError (asserted below), not the default console.error and its stack trace.
    const failures: Array<[error: unknown, deliveryId: string]> = [];
    const onError = (error: unknown, event: { delivery_id: string }) => void failures.push([error, event.delivery_id]);
    const server = await serve(toNodeListener(createWebhookHandler({ secret: SECRET, inbox, onError })));
    try {
      expect((await deliver(server.url, envelope('before'))).status).toBe(200);
      await inboxes.admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      await sleep(150);
      expect(await deliver(server.url, envelope('while-evicting'))).toEqual({ status: 500, body: { error: 'inbox_failed' } });
      expect(failures.map(([error, id]) => [(error as Error).message, id])).toEqual([[expect.stringMatching(/maxmemory-policy allkeys-lru.*noeviction/), 'while-evicting']]);
      await expect(inbox.put(entry('direct'))).rejects.toThrow(/maxmemory-policy allkeys-lru.*noeviction/);
      // The running worker says so too (it keeps draining what is stored).
      await until(() => lines.some((line) => /maxmemory-policy allkeys-lru/.test(line)), 3000);
      await inboxes.admin.config('SET', 'maxmemory-policy', 'noeviction');
      expect((await deliver(server.url, envelope('after'))).status).toBe(200);
      expect((await inbox.list({ status: ['waiting', 'active', 'completed'] })).map((item) => item.deliveryId).sort()).toEqual(['after', 'before']);
    } finally {
      await inboxes.admin.config('SET', 'maxmemory-policy', 'noeviction');
      await server.close();
    }
  });

  test('what on() throws is said once, as thrown (an Error or not); a body that is not the delivery it was stored as never reaches on()', async () => {
    const lines: string[] = [];
    const notices: DeadLetterNotice[] = [];
    const inbox = open({ warn: (line) => void lines.push(line) });
    await inbox.put(entry('thrown-text'));
    // Stored as the receiver would store them, digest and all, but not the delivery their id and kind say.
    await inbox.put({ deliveryId: 'not-json', kind: 'document.uploaded', body: 'not json', receivedAt: Date.now() });
    await inbox.put({ ...entry('someone-else'), deliveryId: 'mislabelled' });
    await inbox.put({ ...entry('other-kind'), kind: 'ping.test' });
    const seen: string[] = [];
    const worker = inbox.process(
      (event) => {
        seen.push(event.delivery_id);
        throw 'CRM said no';
      },
      { attempts: 2, backoff: 0, failureLogIntervalMs: 0, onDeadLetter: (notice) => void notices.push(notice) },
    );
    opened.push(worker);
    await until(async () => (await inbox.stats()).dead === 4);
    expect(seen).toEqual(['thrown-text', 'thrown-text']);
    const dead = new Map((await inbox.deadLetters()).map((letter) => [letter.deliveryId, letter.lastError]));
    expect(dead.get('thrown-text')).toBe('CRM said no');
    expect(dead.get('not-json')).toMatch(/^\[svc-sdk\] inbox: the stored body is not a delivery \(.+\)$/);
    expect(dead.get('mislabelled')).toBe('[svc-sdk] inbox: delivery mislabelled not run: its body is delivery someone-else (document.uploaded), stored under another id or kind');
    expect(dead.get('other-kind')).toBe('[svc-sdk] inbox: delivery other-kind not run: its body is delivery other-kind (document.uploaded), stored under another id or kind');
    await until(() => notices.length === 4);
    expect(notices.find((notice) => notice.deliveryId === 'not-json')?.event).toBeUndefined();
    expect(notices.find((notice) => notice.deliveryId === 'thrown-text')?.event?.delivery_id).toBe('thrown-text');
    // Each failure one line: the retried one, the last one (not again when BullMQ reports it dead), each refused body.
    const about = (id: string) => lines.filter((line) => line.includes(`delivery ${id} `));
    expect(about('thrown-text')).toEqual([
      '[svc-sdk] inbox worker: delivery thrown-text (document.uploaded) failed on attempt 1 of 2: CRM said no; retried later',
      '[svc-sdk] inbox worker: delivery thrown-text (document.uploaded) failed on attempt 2 of 2: CRM said no; now a dead letter (svc-sdk inbox replay when fixed)',
    ]);
    expect(about('mislabelled')).toEqual(['[svc-sdk] inbox worker: delivery mislabelled (document.uploaded) is now a dead letter: [svc-sdk] inbox: delivery mislabelled not run: its body is delivery someone-else (document.uploaded), stored under another id or kind']);
  });

  test('a delivery retried later lists the last error on() threw, whatever it threw', async () => {
    const inbox = open();
    await inbox.put(entry('text-thrown'));
    const worker = inbox.process(
      () => {
        throw 'CRM said no';
      },
      { attempts: 2, backoff: { type: 'fixed', delay: 600_000 } },
    );
    opened.push(worker);
    await until(async () => (await inbox.stats()).delayed === 1);
    expect((await inbox.list({ status: 'delayed' })).map((item) => [item.deliveryId, item.attempts, item.lastError])).toEqual([['text-thrown', 1, 'CRM said no']]);
  });

  test('a rate limit holds back what is over it until its window ends, in the delayed set, no attempt spent', async () => {
    const inbox = open();
    // A window of about 18 years that began a minute ago (the window is floor(now / durationMs)): the deliveries
    // of this test all fall in it, early, so its count must outlive far more than half a window.
    const durationMs = Math.floor((Date.now() - 60_000) / 3);
    for (const id of ['r1', 'r2', 'r3']) await inbox.put(entry(id));
    const started: string[] = [];
    const worker = inbox.process((event) => void started.push(event.delivery_id), { concurrency: 3, rateLimit: { 'document.uploaded': { max: 2, durationMs } } });
    opened.push(worker);
    await until(async () => (await inbox.stats()).delayed === 1 && started.length === 2);
    expect(await inbox.stats()).toMatchObject({ completed: 2, delayed: 1, waiting: 0, active: 0, dead: 0 });
    const [held] = await inbox.list({ status: 'delayed' });
    expect(held?.attempts).toBe(0);
    // Delayed to the end of its window (BullMQ's delayed score is the time × 4096 plus a counter).
    const score = Number(await inboxes.admin.zscore(`bull:${inboxes.queue}:delayed`, `d_${held!.deliveryId}`));
    const windowEnd = (Math.floor(Date.now() / durationMs) + 1) * durationMs;
    expect(Math.abs(Math.floor(score / 4096) - windowEnd)).toBeLessThan(60_000);
    // The count every worker shares outlives its window: a count that expired within it would let more start.
    const counted = `bull:${inboxes.queue}:svc-sdk-rate:document.uploaded:${Math.floor(Date.now() / durationMs)}`;
    expect(await inboxes.admin.get(counted)).toBe('3');
    expect(await inboxes.admin.pttl(counted)).toBeGreaterThan(windowEnd - Date.now());
  });

  test('a delivery whose worker is lost while running it (its lock gone) becomes a dead letter after maxWorkerDeaths, said as such', async () => {
    const lines: string[] = [];
    const notices: DeadLetterNotice[] = [];
    const inbox = open({ warn: (line) => void lines.push(line) });
    await inbox.put(entry('lost'));
    let runs = 0;
    const worker = inbox.process(
      () => {
        runs++;
        return new Promise(() => {});
      },
      // Concurrency 2: the hung run holds one slot; the next worker to take the delivery (this one, on its other slot) makes it dead.
      { concurrency: 2, maxWorkerDeaths: 1, closeGraceMs: 0, failureLogIntervalMs: 0, onDeadLetter: (notice) => void notices.push(notice), workerOptions: { stalledInterval: 100 } },
    );
    opened.push(worker);
    await until(async () => (await inbox.stats()).active === 1);
    // As a killed worker leaves it: the job active, its lock expired. The stalled checks find it (twice: marked, then moved).
    await until(async () => {
      await inboxes.admin.del(`bull:${inboxes.queue}:d_lost:lock`);
      return (await inbox.stats()).dead === 1;
    }, 20_000);
    expect(runs).toBe(1);
    const expected = '[svc-sdk] inbox: the worker running it died 1 times (its process exited, or hung past lockDuration): a dead letter, not run again (maxWorkerDeaths)';
    expect((await inbox.deadLetters()).map((letter) => [letter.deliveryId, letter.lastError])).toEqual([['lost', expected]]);
    await until(() => notices.length === 1);
    expect(notices[0]).toMatchObject({ deliveryId: 'lost', lastError: expected });
    expect(lines).toContain(`[svc-sdk] inbox worker: delivery lost (document.uploaded) is now a dead letter: ${expected}`);
  });

  test('the defaults: 10 attempts, an exponential backoff from 10 s, failures one line per 10 s', async () => {
    const lines: string[] = [];
    const inbox = open({ warn: (line) => void lines.push(line) });
    for (const id of ['default-1', 'default-2']) await inbox.put(entry(id));
    const thrownAt = new Map<string, number>();
    const worker = inbox.process((event) => {
      thrownAt.set(event.delivery_id, Date.now());
      throw new Error('CRM down');
    }, { concurrency: 2 });
    opened.push(worker);
    await until(async () => (await inbox.stats()).delayed === 2);
    const failures = lines.filter((line) => line.includes('inbox worker'));
    // The second failure fell within 10 s of the first: counted, not shown.
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^\[svc-sdk\] inbox worker: delivery default-\d \(document\.uploaded\) failed on attempt 1 of 10: CRM down; retried later$/);
    // Delayed by 10 s (BullMQ's delayed score is the time × 4096 plus a counter).
    const [held] = await inbox.list({ status: 'delayed' });
    const due = Math.floor(Number(await inboxes.admin.zscore(`bull:${inboxes.queue}:delayed`, `d_${held!.deliveryId}`)) / 4096);
    const delay = due - thrownAt.get(held!.deliveryId)!;
    expect(delay).toBeGreaterThan(10_000 - 1000);
    expect(delay).toBeLessThan(10_000 + 1000);
  });

  test('close() says the failures it was still counting, at once; after it, the worker asks Redis nothing more', async () => {
    const lines: string[] = [];
    const inbox = open({ warn: (line) => void lines.push(line), durabilityCheckMs: 20 });
    for (const id of ['c1', 'c2', 'c3']) await inbox.put(entry(id));
    const worker = inbox.process(() => {
      throw new Error('CRM down');
    }, { attempts: 1, concurrency: 3, failureLogIntervalMs: 600_000 });
    await until(async () => (await inbox.stats()).dead === 3);
    expect(lines.filter((line) => line.includes('inbox worker'))).toHaveLength(1);
    await worker.close();
    expect(lines.filter((line) => line.includes('inbox worker')).at(-1)).toBe('[svc-sdk] inbox worker: 2 more failures in the last 600 s, not shown (failureLogIntervalMs)');
    // Its durability check (every 20 ms while it ran) stopped with it: INFO is counted by Redis.
    const infoCalls = async () => Number(/cmdstat_info:calls=(\d+)/.exec(await inboxes.admin.info('commandstats'))?.[1] ?? 0);
    const before = await infoCalls();
    await sleep(400);
    // The one more is this read's own INFO.
    expect((await infoCalls()) - before).toBe(1);
  });

  test('each running worker asks Redis again every durabilityCheckMs itself, not served by the check its inbox last cached', async () => {
    // Three workers of one inbox (as a receiver and its workers share one in a process): the inbox's
    // cache of a passed check would let them ask once per durabilityCheckMs between them.
    const inbox = open({ durabilityCheckMs: 200 });
    const workers = [1, 2, 3].map(() => inbox.process(() => {}));
    opened.push(...workers);
    await Promise.all(workers.map((worker) => worker.ready()));
    const infoCalls = async () => Number(/cmdstat_info:calls=(\d+)/.exec(await inboxes.admin.info('commandstats'))?.[1] ?? 0);
    const before = await infoCalls();
    const from = Date.now();
    await sleep(2000);
    const asked = (await infoCalls()) - before - 1;
    // Each on its own interval: about 3 per 200 ms. Served from the cache, at most 1 per 200 ms (and one).
    expect(asked).toBeGreaterThan((Date.now() - from) / 200 + 2);
  });

  test('a closed worker leaves no timer behind (its close grace, its checks): a process that closes its workers can exit', async () => {
    const inbox = open({ durabilityCheckMs: 100 });
    await inbox.put(entry('then-closed'));
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const seen: string[] = [];
    const worker = inbox.process((event) => void seen.push(event.delivery_id));
    await until(() => seen.length === 1);
    await worker.close();
    expect(timers()).toBeLessThanOrEqual(before);
  });

  test('a worker refused by its Redis, whose ready() nobody awaits, says so and is no unhandled rejection (which ends a Node process)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const lines: string[] = [];
      const inbox = open({ warn: (line) => void lines.push(line) });
      await inboxes.admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      opened.push(inbox.process(() => {}));
      await until(() => lines.some((line) => /maxmemory-policy allkeys-lru/.test(line)));
      await sleep(100);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await inboxes.admin.config('SET', 'maxmemory-policy', 'noeviction');
    }
  });

  test('a worker closed right after it was made never runs: ready() says it was closed before it started', async () => {
    const inbox = open();
    await inbox.put(entry('never-run'));
    const seen: string[] = [];
    const worker = inbox.process((event) => void seen.push(event.delivery_id));
    await worker.close();
    await expect(worker.ready()).rejects.toThrow('[svc-sdk] inbox worker: closed before it started');
    await sleep(300);
    expect(seen).toEqual([]);
    expect(await inbox.stats()).toMatchObject({ waiting: 1 });
  });

  test('process() options at their limits are accepted', async () => {
    const inbox = open();
    await inbox.put(entry('limits'));
    const seen: string[] = [];
    const worker = inbox.process((event) => void seen.push(event.delivery_id), { concurrency: 1, attempts: 1, maxWorkerDeaths: 1, closeGraceMs: 0, failureLogIntervalMs: 0, rateLimit: { 'ping.test': { max: 1, durationMs: 1 } } });
    opened.push(worker);
    await until(() => seen.length === 1);
  });

  test('bad process() options are refused with the field named', () => {
    const inbox = open();
    expect(() => inbox.process(() => {}, { maxWorkerDeaths: 0 })).toThrow(/maxWorkerDeaths must be a whole number ≥ 1/);
    expect(() => inbox.process(() => {}, { closeGraceMs: -1 })).toThrow(/closeGraceMs must be a whole number ≥ 0/);
    for (const limit of [{ max: 0, durationMs: 10 }, { max: 1.5, durationMs: 10 }, { max: 1, durationMs: 0 }, { max: 1, durationMs: 2.5 }, null, { max: 1 }]) {
      expect(() => inbox.process(() => {}, { rateLimit: { 'ping.test': limit as never } })).toThrow('[svc-sdk] inbox.process: rateLimit["ping.test"] must be { max, durationMs }, whole numbers ≥ 1');
    }
    expect(() => inbox.process(() => {}, { failureLogIntervalMs: 0.5 })).toThrow(/failureLogIntervalMs must be a whole number/);
  });
});

describe.skipIf(!hasRedis)('a worker whose Redis goes away', () => {
  let redis: TestRedis;
  afterAll(async () => {
    await redis?.stop();
    redis?.remove();
  });

  test('no hot retry loop: while Redis is down the worker reconnects about once a second, says so a few times, and resumes once it is back', async () => {
    redis = await startTestRedis(['--appendonly', 'yes']);
    const lines: string[] = [];
    const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: redis.port }, queue: 'down', warn: (line) => void lines.push(line) });
    const seen: string[] = [];
    // Failures told at most once a minute: the worker's connection trouble then too (at least once a second otherwise).
    const worker = inbox.process((event) => void seen.push(event.delivery_id), { failureLogIntervalMs: 60_000 });
    await worker.ready();
    await inbox.put(entry('before-down'));
    await until(() => seen.length === 1);
    lines.length = 0;
    await redis.stop();
    // Something on the port that accepts and hangs up at once: each reconnect attempt is counted.
    const sockets: Socket[] = [];
    let connections = 0;
    const peer: Server = createNetServer((socket) => {
      connections++;
      sockets.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => peer.listen(redis.port, '127.0.0.1', resolve));
    await sleep(3000);
    await new Promise<void>((resolve) => peer.close(() => resolve()));
    // BullMQ's connections (the worker's two, the queue's) each retry at ≥ 1 s: a hot loop would be hundreds.
    expect(connections).toBeLessThan(30);
    expect(lines.length).toBeLessThan(8);
    // Said, though: the worker's own connections' trouble, beside the inbox's, once in these 3 s (the rest counted).
    const workerLines = () => lines.filter((line) => line.startsWith('[svc-sdk] inbox worker: '));
    expect(workerLines()).toHaveLength(1);
    await redis.restart();
    await until(() => inbox.put(entry('after-up')).then(() => true, () => false), 15_000);
    await until(() => seen.includes('after-up'), 15_000);
    await worker.close();
    // What was counted is said when the worker closes, not left to the end of the minute.
    expect(workerLines().at(-1)).toMatch(/^\[svc-sdk\] inbox worker: \d+ more failures? in the last 60 s, not shown \(failureLogIntervalMs\)$/);
    await inbox.close();
  }, 40_000);
});
