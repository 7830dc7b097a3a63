// The ledger over createRedisLedgerStore on a real redis-server, through both client libraries:
// the same behaviour as in memory (ledger-suite.ts), each data set a key prefix of its own and each
// ledger a store object of its own (two processes sharing a Redis), then what only Redis has: the
// durability check the inbox makes, the state across a restart, scripts loaded again.
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionLedger, createRedisLedgerStore, type LedgerStore } from '../../src/actions/index.js';
import { approved, delivery, expired, proposed } from './events.js';
import { ledgerSuite, until } from './ledger-suite.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from '../inbox/redis.js';

reportMissingRedis();

interface Connection {
  client: unknown;
  close(): Promise<unknown>;
}

const CLIENTS: Array<[string, (port: number) => Promise<Connection>]> = [
  [
    'node-redis',
    async (port) => {
      const client = createClient({ url: `redis://127.0.0.1:${port}` });
      client.on('error', () => undefined);
      await client.connect();
      return { client, close: () => client.close() };
    },
  ],
  [
    'ioredis',
    async (port) => {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
      client.on('error', () => undefined);
      await client.connect();
      return { client, close: () => client.quit() };
    },
  ],
];

describe.skipIf(!hasRedis)('createActionLedger({ store: createRedisLedgerStore(client) }) on a real redis-server', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  });
  afterAll(async () => {
    await redis?.stop();
    redis?.remove();
  });

  describe.each(CLIENTS)('with %s', (_name, connect) => {
    const connections: Connection[] = [];
    const stores: LedgerStore[] = [];
    afterAll(async () => {
      await Promise.all(stores.map((store) => store.close()));
      await Promise.all(connections.map((connection) => connection.close()));
    });
    let client: unknown;
    beforeAll(async () => {
      const connection = await connect(redis.port);
      connections.push(connection);
      client = connection.client;
    });
    ledgerSuite((name) => {
      const store = createRedisLedgerStore(client as never, { prefix: `test:${name}:` });
      stores.push(store);
      return store;
    });

    const numsub = async (channel: string) => {
      const probe = new Redis({ port: redis.port, host: '127.0.0.1' });
      try {
        return Number(((await probe.pubsub('NUMSUB', channel)) as [string, number])[1]);
      } finally {
        probe.disconnect();
      }
    };

    it('close() closes the subscriber the store opened; a subscriber passed in is used and left open', async () => {
      const prefix = `subscriber-${Math.random()}:`;
      const owned = createActionLedger({ store: createRedisLedgerStore(client as never, { prefix }) });
      await owned.record(proposed('s'));
      expect(await owned.waitForDecision('s', { timeoutMs: 0 })).toMatchObject({ status: 'timeout' });
      await until(async () => (await numsub(`${prefix}decided`)) === 1);
      await owned.close();
      await until(async () => (await numsub(`${prefix}decided`)) === 0);

      const given = (client as { duplicate(): unknown }).duplicate() as { isOpen?: boolean; status?: string; connect?(): Promise<unknown>; close?(): Promise<unknown>; quit?(): Promise<unknown> };
      const passing = createActionLedger({ store: createRedisLedgerStore(client as never, { prefix, subscriber: given }), pollMs: 60_000 });
      const waiting = passing.waitForDecision('s', { timeoutMs: 30_000 });
      await until(async () => (await numsub(`${prefix}decided`)) === 1);
      await owned.record(approved('s')).catch(() => undefined); // the closed ledger's store: its client is the test's, still open
      expect(await waiting).toMatchObject({ status: 'approved' });
      await passing.close();
      expect(await numsub(`${prefix}decided`)).toBe(1); // still the caller's, still subscribed
      await (given.close ?? given.quit)!.call(given);
    });

    it('the default prefix is svc-sdk:actions: (what svc-sdk actions and svc-sdk mcp read by default)', async () => {
      const id = `default-prefix-${Math.random().toString(36).slice(2)}`;
      const ledger = createActionLedger({ store: createRedisLedgerStore(client as never) });
      await ledger.record(proposed(id));
      const probe = new Redis({ port: redis.port, host: '127.0.0.1' });
      expect(await probe.exists(`svc-sdk:actions:doc:action:${id}`)).toBe(1);
      probe.disconnect();
    });

    it('a subscriber that cannot subscribe: one warning, and waits still resolve by polling', async () => {
      const prefix = `nosub-${Math.random()}:`;
      const warnings: string[] = [];
      const broken = { on: () => undefined, isOpen: true, subscribe: () => Promise.reject(new Error('subscriber refused')) };
      const ledger = createActionLedger({ store: createRedisLedgerStore(client as never, { prefix, subscriber: broken, warn: (message) => warnings.push(message) }), pollMs: 20 });
      await ledger.record(proposed('p'));
      const waiting = ledger.waitForDecision('p', { timeoutMs: 30_000 });
      await ledger.record(approved('p'));
      expect(await waiting).toMatchObject({ status: 'approved' });
      expect(warnings.filter((warning) => warning.includes('subscribe'))).toEqual(['[svc-sdk] actions ledger: could not subscribe to decisions (subscriber refused); polling only']);
      await ledger.close();
    });

    it('deliveryTtlMs: each delivery_id is kept that long (Redis expires it; whole ms), and one that is not a positive number is refused', async () => {
      const prefix = `ttl-${Math.random()}:`;
      const ledger = createActionLedger({ store: createRedisLedgerStore(client as never, { prefix, deliveryTtlMs: 3_600_000.5 }) });
      const job = delivery('job.completed', { run_id: 'ttl', agent_name: 'a', output: 1 });
      expect((await ledger.record(job)).outcome).toBe('applied');
      expect((await ledger.record(job)).outcome).toBe('duplicate');
      const probe = new Redis({ port: redis.port, host: '127.0.0.1' });
      const ttl = await probe.pttl(`${prefix}seen:${job.delivery_id}`);
      probe.disconnect();
      expect(ttl).toBeGreaterThan(3_000_000);
      expect(ttl).toBeLessThanOrEqual(3_600_001);
      // Whole ms, rounded up: less than one ms is one, not none.
      const tiny = createActionLedger({ store: createRedisLedgerStore(client as never, { prefix: `${prefix}tiny:`, deliveryTtlMs: 0.4 }) });
      expect((await tiny.record(job)).outcome).toBe('applied');
      for (const deliveryTtlMs of [0, -5, Number.NaN]) {
        expect(() => createRedisLedgerStore(client as never, { deliveryTtlMs })).toThrow(/^\[svc-sdk\] createRedisLedgerStore: deliveryTtlMs must be a positive number of ms/);
      }
    });

    it('commit tells this process of a decision it committed, and of nothing else: not a proposal, a duplicate or a conflict', async () => {
      const prefix = `tell-${Math.random()}:`;
      const store = createRedisLedgerStore(client as never, { prefix });
      const heard: unknown[] = [];
      store.subscribe((actionId) => heard.push(actionId));
      // Subscribed on the channel too: each decision is then heard twice, at once and by the channel.
      await until(async () => (await numsub(`${prefix}decided`)) === 1);
      expect(await store.commit({ deliveryId: 't1', key: 'action:t', version: 0, value: '{}', decided: 't' })).toBe('committed');
      await until(() => heard.length === 2);
      expect(await store.commit({ deliveryId: 't1', key: 'action:t', version: 1, value: '{}', decided: 't' })).toBe('duplicate');
      expect(await store.commit({ deliveryId: 't2', key: 'action:t', version: 0, value: '{}', decided: 't' })).toBe('conflict');
      expect(await store.commit({ deliveryId: 't3', key: 'action:u', version: 0, value: '{}', pending: { actionId: 'u', score: 1 } })).toBe('committed');
      // Nothing more comes (a bound on nothing happening, so never flaky).
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toEqual(['t', 't']);
      await store.close();
    });

    it('a script error other than NOSCRIPT reaches the caller as Redis gave it (not run again, which would call the delivery a duplicate)', async () => {
      const prefix = `broken-${Math.random()}:`;
      const ledger = createActionLedger({ store: createRedisLedgerStore(client as never, { prefix }) });
      await ledger.record(proposed('b'));
      // The decisions' counter, overwritten by hand with what INCR cannot count: the commit script fails past its first writes.
      const probe = new Redis({ port: redis.port, host: '127.0.0.1' });
      await probe.set(`${prefix}sequence`, 'not a number');
      probe.disconnect();
      await expect(ledger.record(approved('b'))).rejects.toThrow(/not an integer/);
      await ledger.close();
    });

    it('a restarted Redis (append-only file) gives a new process the same state, and the scripts are loaded again', async () => {
      const prefix = `restart-${Math.random()}:`;
      const before = createActionLedger({ store: createRedisLedgerStore(client as never, { prefix }) });
      await before.record(proposed('kept', { runId: 'r' }));
      await before.record(approved('kept'));
      await before.record(proposed('still-pending', { runId: 'r' }));
      await redis.stop();
      await redis.restart();
      // Reconnected by the client (both reconnect by themselves); a fresh connection stands for the new process.
      const fresh = await connect(redis.port);
      connections.push(fresh);
      const after = createActionLedger({ store: createRedisLedgerStore(fresh.client as never, { prefix }) });
      expect(await after.get('kept')).toMatchObject({ status: 'approved', runId: 'r', decision: { status: 'approved', result: { sent: true } } });
      expect((await after.run('r')).actions.map((action) => action.actionId).sort()).toEqual(['kept', 'still-pending']);
      // The first store's scripts were loaded before the restart emptied Redis's cache: NOSCRIPT, loaded again.
      expect((await before.record(approved('still-pending'))).outcome).toBe('applied');
      expect(await after.waitForDecision('still-pending', { timeoutMs: 2000 })).toMatchObject({ status: 'approved' });
      await Promise.all([before.close(), after.close()]);
    });
  });

  it('a Redis that evicts keys is refused before anything is recorded, as the inbox refuses it', async () => {
    const evicting = await startTestRedis(['--maxmemory-policy', 'allkeys-lru']);
    const client = createClient({ url: `redis://127.0.0.1:${evicting.port}` });
    await client.connect();
    try {
      const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix: 'evict:' }) });
      await expect(ledger.record(proposed('a'))).rejects.toThrow(/^\[svc-sdk\] actions ledger: Redis evicts keys under memory pressure \(maxmemory-policy allkeys-lru\).*noeviction/);
      expect(await client.keys('evict:*')).toEqual([]);
    } finally {
      await client.close();
      await evicting.stop();
      evicting.remove();
    }
  });

  it('a refusal is not kept: once the Redis no longer evicts, the same ledger records', async () => {
    const evicting = await startTestRedis(['--maxmemory-policy', 'allkeys-lru', '--appendonly', 'yes']);
    const client = new Redis({ port: evicting.port, host: '127.0.0.1' });
    try {
      const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix: 'fixed:' }) });
      await expect(ledger.record(proposed('a'))).rejects.toThrow(/evicts keys/);
      await client.config('SET', 'maxmemory-policy', 'noeviction');
      expect((await ledger.record(proposed('a'))).outcome).toBe('applied');
    } finally {
      client.disconnect();
      await evicting.stop();
      evicting.remove();
    }
  });

  it('a Redis without an append-only file gets one warning (none with acceptNoPersistence)', async () => {
    const volatile = await startTestRedis();
    const client = new Redis({ port: volatile.port, host: '127.0.0.1' });
    try {
      const warnings: string[] = [];
      const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix: 'warn:', warn: (message) => warnings.push(message) }) });
      await ledger.record(proposed('a'));
      await ledger.record(approved('a'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^\[svc-sdk\] actions ledger: Redis has no append-only file.*acceptNoPersistence/);
      const quiet: string[] = [];
      const accepted = createActionLedger({ store: createRedisLedgerStore(client, { prefix: 'quiet:', acceptNoPersistence: true, warn: (message) => quiet.push(message) }) });
      await accepted.record(proposed('a'));
      expect(quiet).toEqual([]);
    } finally {
      client.disconnect();
      await volatile.stop();
      volatile.remove();
    }
  });

  it('createRedisLedgerStore refuses what is not a client, naming the fix', () => {
    for (const client of [{}, null, undefined, { isOpen: true }]) {
      expect(() => createRedisLedgerStore(client as never)).toThrow(/^\[svc-sdk\] createRedisLedgerStore: pass a connected node-redis \(createClient\) or ioredis \(new Redis\) client/);
    }
  });

  it.each(CLIENTS)('with %s, every key the store writes is under its prefix, and each script is loaded once: a change is then one EVALSHA', async (_name, connect) => {
    const own = await startTestRedis(['--appendonly', 'yes']);
    const connection = await connect(own.port);
    const probe = new Redis({ port: own.port, host: '127.0.0.1' });
    try {
      const prefix = 'only-here:';
      const ledger = createActionLedger({ store: createRedisLedgerStore(connection.client as never, { prefix }), pollMs: 20 });
      await ledger.record(proposed('k1', { runId: 'rk' }));
      // Loaded now (the durability check passed, the commit script loaded): count from here.
      await probe.config('RESETSTAT');
      const handled: string[] = [];
      const subscription = ledger.onDecision((action) => void handled.push(action.actionId), { name: 'keys', pollMs: 20, leaseMs: 60_000 });
      await ledger.record(approved('k1', { runId: 'rk' }));
      await ledger.record(proposed('k2', { runId: 'rk' }));
      await ledger.record(expired('k2'));
      await ledger.record(delivery('job.completed', { run_id: 'rk', agent_name: 'a', output: 1 }));
      await ledger.record(delivery('credit.low', { balance: 50, threshold: 100 }));
      expect(await ledger.waitForDecision('k2', { timeoutMs: 5000 })).toMatchObject({ status: 'expired' });
      await until(async () => (await ledger.handled('k2', 'keys')).done && (await ledger.handled('k1', 'keys')).done);
      await subscription.close();
      expect(handled.sort()).toEqual(['k1', 'k2']);
      const stats = await probe.info('commandstats');
      const calls = (command: string) => Number(new RegExp(`^cmdstat_${command.replace('|', '\\|')}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
      // Five changes, one EVALSHA each; the handler's three scripts (queue, claim, finish) loaded once each, however many passes it made.
      expect(calls('script|load')).toBe(3);
      expect(calls('evalsha')).toBeGreaterThanOrEqual(5 + 3);
      // Every script ran by its sha: the commit script alone accounts for five of them.
      expect(calls('eval')).toBe(0);
      const keys = await probe.keys('*');
      expect(keys.length).toBeGreaterThan(10);
      expect(keys.filter((key) => !key.startsWith(prefix))).toEqual([]);
      await ledger.close();
    } finally {
      probe.disconnect();
      await connection.close();
      await own.stop();
      own.remove();
    }
  });
});
