// The inbox as an operator works it (what `svc-sdk inbox ls | show | replay` and the dashboard call),
// against a real redis-server: every dead letter seen, listings by state, kind and time, one delivery
// shown whole, replay by the same filters with a dry run first, and what must be refused (an empty
// filter, a delivery still running, an unknown queue). Then the Redis that is not there: a peer
// that accepts and never answers, nothing listening, a wrong or missing password, each one line
// with its fix, no credential in any form of URL.
import { connect, createServer as createNetServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import { bullmqInbox } from '../../src/inbox/index.js';
import { freePort } from '../webhooks/redis-server.js';
import { onTestRedis } from './on-redis.js';
import { hasRedis, reportMissingRedis, startTestRedis } from './redis.js';
import { entry, sleep, until } from './support.js';

reportMissingRedis();

describe.skipIf(!hasRedis)('operating the inbox on a real redis-server', () => {
  const inboxes = onTestRedis({ queuePrefix: 'o' });
  const { open, opened } = inboxes;

  /** An inbox holding dead letters `dead`, processed deliveries `done`, and whatever `more` stores. */
  const withDeadLetters = async (dead: Array<[string, string, number]>, done: Array<[string, string, number]> = []) => {
    const inbox = open();
    for (const [id, kind, at] of [...dead, ...done]) await inbox.put(entry(id, {}, kind, at));
    const deadIds = new Set(dead.map(([id]) => id));
    const worker = inbox.process(
      (event) => {
        if (deadIds.has(event.delivery_id)) throw new Error(`failed ${event.delivery_id}`);
      },
      { attempts: 1, concurrency: 4 },
    );
    await until(async () => {
      const stats = await inbox.stats();
      return stats.dead === dead.length && stats.completed === done.length;
    });
    await worker.close();
    return inbox;
  };

  const T0 = Date.parse('2026-03-01T10:00:00Z');
  const minutes = (n: number) => T0 + n * 60_000;

  test('deadLetters() sees every dead letter (three here), oldest dead first', async () => {
    const inbox = await withDeadLetters([
      ['a', 'document.uploaded', minutes(0)],
      ['b', 'ping.test', minutes(1)],
      ['c', 'document.uploaded', minutes(2)],
    ]);
    const dead = await inbox.deadLetters();
    expect(dead.map((letter) => letter.deliveryId).sort()).toEqual(['a', 'b', 'c']);
    expect(dead.map((letter) => letter.lastError).sort()).toEqual(['failed a', 'failed b', 'failed c']);
    expect(dead.map((letter) => letter.failedAt!)).toEqual([...dead.map((letter) => letter.failedAt!)].sort((x, y) => x - y));
  });

  test('list() by status, kind, since and until (stored times), oldest first, at most limit', async () => {
    const inbox = await withDeadLetters(
      [
        ['d1', 'document.uploaded', minutes(0)],
        ['d2', 'ping.test', minutes(10)],
        ['d3', 'document.uploaded', minutes(20)],
      ],
      [
        ['p1', 'document.uploaded', minutes(5)],
        ['p2', 'ping.test', minutes(15)],
      ],
    );
    await inbox.put(entry('w1', {}, 'ping.test', minutes(30)));
    const ids = (items: Array<{ deliveryId: string }>) => items.map((item) => item.deliveryId);
    expect(ids(await inbox.list())).toEqual(['d1', 'p1', 'd2', 'p2', 'd3', 'w1']);
    expect(ids(await inbox.list({ status: 'dead' }))).toEqual(['d1', 'd2', 'd3']);
    expect(ids(await inbox.list({ status: ['completed', 'waiting'] }))).toEqual(['p1', 'p2', 'w1']);
    expect(ids(await inbox.list({ kind: 'document.uploaded' }))).toEqual(['d1', 'p1', 'd3']);
    expect(ids(await inbox.list({ kind: ['ping.test'], status: 'dead' }))).toEqual(['d2']);
    // since is inclusive, until exclusive; a Date, ms or an ISO date alike.
    expect(ids(await inbox.list({ since: new Date(minutes(10)), until: '2026-03-01T10:20:00Z' }))).toEqual(['d2', 'p2']);
    expect(ids(await inbox.list({ since: minutes(20) }))).toEqual(['d3', 'w1']);
    expect(ids(await inbox.list({ limit: 2 }))).toEqual(['d1', 'p1']);
    const [first] = await inbox.list({ status: 'dead', limit: 1 });
    expect(first).toEqual({ deliveryId: 'd1', kind: 'document.uploaded', status: 'dead', attempts: 1, lastError: 'failed d1', receivedAt: minutes(0), finishedAt: expect.any(Number) });
    await expect(inbox.list({ status: 'failed' as never })).rejects.toThrow(/inbox\.list: status must be waiting, active, delayed, completed, dead \(got "failed"\)/);
    await expect(inbox.list({ since: 'yesterday' })).rejects.toThrow(/inbox\.list: since must be a Date, ms since the epoch or an ISO 8601 date/);
    await expect(inbox.list({ limit: 0 })).rejects.toThrow(/limit must be a whole number ≥ 1/);
  });

  test('show(id) gives one delivery whole: body as stored, its event, state, attempts, last error; undefined for an unknown id', async () => {
    const inbox = await withDeadLetters([['s1', 'document.uploaded', minutes(0)]]);
    const shown = await inbox.show('s1');
    expect(shown).toMatchObject({ deliveryId: 's1', kind: 'document.uploaded', status: 'dead', attempts: 1, lastError: 'failed s1', receivedAt: minutes(0), workerDeaths: 0 });
    expect(JSON.parse(shown!.body)).toMatchObject({ delivery_id: 's1', event: 'document.uploaded' });
    expect(shown?.event?.delivery_id).toBe('s1');
    expect(await inbox.show('nope')).toBeUndefined();
    await expect(inbox.show('')).rejects.toThrow(/inbox\.show: pass a delivery id/);
  });

  test('replay by a filter counts first (dryRun), then replays exactly those; an empty filter is refused, { all: true } is the explicit form', async () => {
    const inbox = await withDeadLetters([
      ['r1', 'document.uploaded', minutes(0)],
      ['r2', 'ping.test', minutes(10)],
      ['r3', 'document.uploaded', minutes(20)],
      ['r4', 'document.uploaded', minutes(40)],
    ]);
    await expect(inbox.replay({})).rejects.toThrow(/an empty filter would replay every dead letter: pass \{ all: true \} to mean that/);
    await expect(inbox.replay({ dryRun: true })).rejects.toThrow(/an empty filter/);
    // @ts-expect-error -- all must be true
    await expect(inbox.replay({ all: false })).rejects.toThrow(/all must be true/);
    await expect(inbox.replay({ all: true, kind: 'ping.test' } as never)).rejects.toThrow(/pass it alone/);
    await expect(inbox.replay({ status: 'waiting' as never })).rejects.toThrow(/status must be dead or completed/);
    // @ts-expect-error -- not a target
    await expect(inbox.replay(null)).rejects.toThrow(/pass a delivery id, \{ all: true \} or a filter/);
    const incident = { kind: 'document.uploaded', since: minutes(0), until: minutes(30) };
    expect(await inbox.replay({ ...incident, dryRun: true })).toEqual(['r1', 'r3']);
    expect((await inbox.deadLetters()).length).toBe(4);
    const ran: string[] = [];
    const worker = inbox.process((event) => void ran.push(event.delivery_id));
    opened.push(worker);
    expect(await inbox.replay(incident)).toEqual(['r1', 'r3']);
    await until(() => ran.length === 2);
    expect(ran.sort()).toEqual(['r1', 'r3']);
    expect((await inbox.deadLetters()).map((letter) => letter.deliveryId).sort()).toEqual(['r2', 'r4']);
    expect((await inbox.replay({ all: true, dryRun: true })).sort()).toEqual(['r2', 'r4']);
    expect((await inbox.replay({ all: true })).sort()).toEqual(['r2', 'r4']);
    await until(() => ran.length === 4);
    // Processed ones, by filter, on purpose.
    expect(await inbox.replay({ status: 'completed', kind: 'ping.test' })).toEqual(['r2']);
    await until(() => ran.length === 5);
  });

  test('replaying a delivery that is running (or waiting) is refused: it would run twice', async () => {
    const inbox = open();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await inbox.put(entry('busy'));
    const worker = inbox.process(() => held);
    opened.push(worker);
    await until(async () => (await inbox.stats()).active === 1);
    await expect(inbox.replay('busy')).rejects.toThrow(/delivery "busy" is running now: it will finish anyway, and a replay would run it twice/);
    await inbox.put(entry('queued'));
    await expect(inbox.replay('queued')).rejects.toThrow(/delivery "queued" is waiting/);
    expect(await inbox.replay({ status: 'completed', kind: 'document.uploaded', dryRun: true })).toEqual([]);
    release();
    await until(async () => (await inbox.stats()).completed === 2);
    expect(await inbox.replay('busy')).toEqual(['busy']);
  });

  test('bad bullmqInbox options are refused with the field and the fix; a prefix of its own is used for everything', async () => {
    const connection = { host: '127.0.0.1', port: inboxes.redis.port };
    expect(() => bullmqInbox({ connection: undefined as never })).toThrow(/^\[svc-sdk\] bullmqInbox: connection is missing/);
    for (const durabilityCheckMs of [0, 1.5, Number.NaN]) expect(() => bullmqInbox({ connection, durabilityCheckMs })).toThrow(`[svc-sdk] bullmqInbox: durabilityCheckMs must be a whole number of ms ≥ 1 (got ${durabilityCheckMs})`);
    for (const timeoutMs of [0, 2.5]) expect(() => bullmqInbox({ connection, timeoutMs })).toThrow(`[svc-sdk] bullmqInbox: timeoutMs must be a whole number of ms ≥ 1 (got ${timeoutMs})`);
    // An array of 16 strings has a length of 16 too: not a key.
    for (const integrityKey of ['k'.repeat(15), 42 as never, '', Array.from({ length: 16 }, () => 'k') as never])
      expect(() => bullmqInbox({ connection, integrityKey })).toThrow('[svc-sdk] bullmqInbox: integrityKey must be a string of at least 16 characters (a random secret shared by the receivers and the workers)');
    // At the limits: accepted.
    opened.push(bullmqInbox({ connection, durabilityCheckMs: 1, timeoutMs: 1, integrityKey: 'k'.repeat(16), warn: () => {} }));
    const own = open({ prefix: 'svcq' });
    await own.put(entry('prefixed'));
    const ran: string[] = [];
    const worker = own.process((event) => void ran.push(event.delivery_id));
    opened.push(worker);
    await until(() => ran.length === 1);
    expect((await own.show('prefixed'))?.status).toBe('completed');
    const { admin, queue } = inboxes;
    expect(await admin.exists(`svcq:${queue}:d_prefixed`, `svcq:${queue}:svc-sdk-inbox`)).toBe(2);
    expect(await admin.exists(`bull:${queue}:d_prefixed`)).toBe(0);
  });

  test('an unknown queue is an error naming the queues there, never an empty listing or zeros', async () => {
    const known = await withDeadLetters([['k1', 'ping.test', minutes(0)]]);
    void known;
    const typo = bullmqInbox({ connection: { host: '127.0.0.1', port: inboxes.redis.port }, queue: 'svc-webhoks', warn: () => {} });
    opened.push(typo);
    for (const operation of [() => typo.stats(), () => typo.list(), () => typo.deadLetters(), () => typo.show('k1'), () => typo.replay({ all: true })]) {
      await expect(operation()).rejects.toThrow(new RegExp(`^\\[svc-sdk\\] inbox: no queue "svc-webhoks" in this Redis \\(prefix bull\\): nothing was ever stored in it; pass the receivers' queue \\(queue option, or --queue\\); queues here: .*${inboxes.queue}`));
    }
    // A queue a worker runs on is known before its first delivery.
    const fresh = open();
    const worker = fresh.process(() => {});
    opened.push(worker);
    await worker.ready();
    expect(await fresh.stats()).toEqual({ waiting: 0, active: 0, delayed: 0, completed: 0, dead: 0 });
  });
});

describe.skipIf(!hasRedis)('the inbox when its Redis is not there: bounded, one line, no credential', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  test('connection trouble is warned once per kind, not at each reconnect', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port }, warn: (line) => void lines.push(line), timeoutMs: 2500 });
    cleanups.push(() => inbox.close());
    await inbox.stats().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(lines).toEqual([`[svc-sdk] inbox: connect ECONNREFUSED 127.0.0.1:${port}`]);
  });

  test('a peer that accepts and never answers: each operation ends at timeoutMs with a clear error, and close() too', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createNetServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const port = (silent.address() as { port: number }).port;
    const inbox = bullmqInbox({ connection: { url: `redis://:pa55word@127.0.0.1:${port}` }, warn: () => {}, timeoutMs: 300 });
    for (const [name, operation] of [
      ['stats', () => inbox.stats()],
      ['list', () => inbox.list()],
      ['show', () => inbox.show('x')],
      ['replay', () => inbox.replay('x')],
      ['deadLetters', () => inbox.deadLetters()],
    ] as const) {
      const started = Date.now();
      const error = (await operation().catch((caught: unknown) => caught)) as Error;
      expect(Date.now() - started).toBeLessThan(2000);
      expect(error.message).toBe(`[svc-sdk] inbox ${name}: Redis at redis://[redacted]:[redacted]@127.0.0.1:${port} did not answer within 300 ms (timeoutMs): is it a Redis? check the address (connection, or --redis)`);
    }
    const closing = Date.now();
    await inbox.close();
    expect(Date.now() - closing).toBeLessThan(2000);
  });

  test('a Redis that answered, then goes silent: close() ends at timeoutMs and drops the connection (BullMQ\'s QUIT would wait for ever)', async () => {
    const real = await startTestRedis(['--appendonly', 'yes']);
    // A forwarder to the real Redis that can be told to pass nothing more, either way, its sockets kept open.
    let silentNow = false;
    const clients = new Set<Socket>();
    const hungUp = new Set<Socket>();
    const forwarder: Server = createNetServer((client) => {
      clients.add(client);
      const upstream = connect(real.port, '127.0.0.1');
      client.on('data', (chunk) => void (silentNow || upstream.write(chunk)));
      upstream.on('data', (chunk) => void (silentNow || client.write(chunk)));
      client.on('close', () => {
        hungUp.add(client);
        upstream.destroy();
      });
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const client of clients) client.destroy();
      await new Promise<void>((resolve) => forwarder.close(() => resolve()));
      await real.stop();
      real.remove();
    });
    const port = (forwarder.address() as { port: number }).port;
    const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port }, queue: 'goes-silent', warn: () => {}, timeoutMs: 500, acceptNoPersistence: true });
    await inbox.put(entry('answered'));
    expect(await inbox.stats()).toMatchObject({ waiting: 1 });
    silentNow = true;
    const closing = Date.now();
    await inbox.close();
    expect(Date.now() - closing).toBeLessThan(5000);
    expect(clients.size).toBeGreaterThan(0);
    await until(() => hungUp.size === clients.size, 5000);
  });

  test('nothing listening: "cannot reach Redis" with the fix, at once (not at timeoutMs: waiting cannot mend it)', async () => {
    const port = await freePort();
    const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port }, warn: () => {}, timeoutMs: 8000 });
    cleanups.push(() => inbox.close());
    const started = Date.now();
    await expect(inbox.stats()).rejects.toThrow(`[svc-sdk] inbox: cannot reach Redis at 127.0.0.1:${port} (ECONNREFUSED): start it (redis-server) or pass its address (connection, or --redis redis://host:port)`);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  test('a wrong password and a missing one: each said in one line with the fix, the password in no message, whatever the URL form', async () => {
    const locked = await startTestRedis(['--requirepass', 'right-horse-battery']);
    cleanups.push(async () => {
      await locked.stop();
      locked.remove();
    });
    const lines: string[] = [];
    const attempt = async (connection: Parameters<typeof bullmqInbox>[0]['connection']) => {
      const inbox = bullmqInbox({ connection, warn: (line) => void lines.push(line), timeoutMs: 1500 });
      try {
        return ((await inbox.stats().catch((error: unknown) => error)) as Error).message;
      } finally {
        await inbox.close();
      }
    };
    const port = locked.port;
    const wrong = await attempt({ url: `redis://:Wr0ngPass@127.0.0.1:${port}` });
    expect(wrong).toBe(`[svc-sdk] inbox: Redis at redis://[redacted]:[redacted]@127.0.0.1:${port} refused the password (WRONGPASS): pass the right one in the connection (redis://:<password>@host:port, or --redis)`);
    const withUser = await attempt({ url: `redis://default:Wr0ngPass@127.0.0.1:${port}` });
    expect(withUser).toMatch(/^\[svc-sdk\] inbox: Redis at redis:\/\/\[redacted\]:\[redacted\]@127\.0\.0\.1:\d+ refused the password \(WRONGPASS\)/);
    const asOption = await attempt({ host: '127.0.0.1', port, password: 'Wr0ngPass' });
    expect(asOption).toMatch(/refused the password \(WRONGPASS\)/);
    const missing = await attempt({ host: '127.0.0.1', port });
    expect(missing).toBe(`[svc-sdk] inbox: Redis at 127.0.0.1:${port} needs a password (NOAUTH): pass it in the connection (redis://:<password>@host:port, or --redis)`);
    // rediss:// to a plain Redis (TLS refused) and an http:// URL: no password either.
    const tls = await attempt({ url: `rediss://:Wr0ngPass@127.0.0.1:${port}` });
    expect(tls).toContain('rediss://[redacted]:[redacted]@127.0.0.1');
    const everything = [wrong, withUser, asOption, missing, tls, ...lines].join('\n');
    expect(everything).not.toContain('Wr0ngPass');
    expect(everything).not.toContain('right-horse-battery');
  });

  test('an operation that fails for another reason keeps its words, with every URL of its message redacted', async () => {
    const inbox = bullmqInbox({ connection: { url: 'http://:s3cr3t@127.0.0.1:1' }, warn: () => {}, timeoutMs: 1000 });
    cleanups.push(() => inbox.close());
    const message = ((await inbox.stats().catch((error: unknown) => error)) as Error).message;
    expect(message).toMatch(/^\[svc-sdk\] inbox/);
    expect(message).not.toContain('s3cr3t');
  });
});

describe.skipIf(!hasRedis)('the inbox on a Redis of its own: what it lists, warns and resets', () => {
  const inboxes = onTestRedis({ args: [], defaults: { acceptNoPersistence: true } });
  const { open, opened } = inboxes;

  test('an unknown queue names the queues there, those a worker marked included, at most 10 and sorted; under another prefix, none of these', async () => {
    await open({ queue: 'q01' }).put(entry('id-1'));
    const marked = open({ queue: 'a-worker-only' });
    const worker = marked.process(() => {});
    opened.push(worker);
    await worker.ready();
    const typo = open({ queue: 'svc-webhoks' });
    await expect(typo.stats()).rejects.toThrow(/; queues here: a-worker-only, q01$/);
    // 12 queues now: ten of them named (the scan's first), in order.
    for (let n = 2; n <= 11; n++) await open({ queue: `q${String(n).padStart(2, '0')}` }).put(entry(`id-${n}`));
    const message = ((await typo.list().catch((error: unknown) => error)) as Error).message;
    const named = /; queues here: (.+)$/.exec(message)?.[1]?.split(', ') ?? [];
    expect(named).toHaveLength(10);
    expect(named).toEqual([...named].sort());
    const all = ['a-worker-only', ...Array.from({ length: 11 }, (_, n) => `q${String(n + 1).padStart(2, '0')}`)];
    for (const name of named) expect(all).toContain(name);
    // Another prefix: nothing of this one's is its, and nothing is listed.
    const elsewhere = open({ queue: 'q01', prefix: 'other' });
    await expect(elsewhere.list()).rejects.toThrow(/^\[svc-sdk\] inbox: no queue "q01" in this Redis \(prefix other\): nothing was ever stored in it; pass the receivers' queue \(queue option, or --queue\)$/);
  });

  test('the persistence warning is said once per inbox, however often the check is asked again', async () => {
    const lines: string[] = [];
    const inbox = open({ queue: 'warned-once', acceptNoPersistence: false, durabilityCheckMs: 1, warn: (line) => void lines.push(line) });
    for (let n = 0; n < 4; n++) {
      await inbox.put(entry(`w-${n}`));
      // Past durabilityCheckMs: the next put asks Redis again.
      await sleep(5);
    }
    expect(await inbox.stats()).toMatchObject({ waiting: 4 });
    expect(lines.filter((line) => /no append-only file/.test(line))).toHaveLength(1);
  });

  test('a replayed delivery starts with no worker deaths counted; a kept-hours figure of its own in the replay error', async () => {
    const inbox = open({ queue: 'deaths', keepCompletedMs: 2 * 86_400_000 });
    await inbox.put(entry('died'));
    const worker = inbox.process(() => {
      throw new Error('boom');
    }, { attempts: 1 });
    opened.push(worker);
    await until(async () => (await inbox.stats()).dead === 1);
    await worker.close();
    // As a worker's death leaves it: BullMQ's stalled counter on the job.
    await inboxes.admin.hset('bull:deaths:d_died', 'stc', '2');
    expect((await inbox.show('died'))?.workerDeaths).toBe(2);
    expect(await inbox.replay('died')).toEqual(['died']);
    expect(await inbox.show('died')).toMatchObject({ status: 'waiting', workerDeaths: 0, attempts: 0 });
    expect((await inboxes.admin.hget('bull:deaths:d_died', 'opts')) ?? '').toContain('"removeOnComplete":{"age":172800}');
    await expect(inbox.replay('never')).rejects.toThrow('[svc-sdk] inbox.replay: no delivery "never" in the inbox (processed ones are kept 48 h)');
    // Exactly 24 h is the least accepted.
    expect(() => open({ keepCompletedMs: 86_400_000 })).not.toThrow();
    expect(() => open({ keepCompletedMs: 86_399_999 })).toThrow(/keepCompletedMs must be at least 86400000/);
  });
});
