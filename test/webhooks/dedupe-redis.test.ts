// createRedisDedupeStore against a real redis-server, through both client libraries it supports.
// The server is a child process on a free loopback port, without persistence, killed afterwards.
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRedisDedupeStore, type DedupeStore, type RedisClientLike } from '../../src/webhooks/index.js';
import { ENTRIES } from './entries.js';
import { hasRedis, reportMissingRedis, useRedisServer } from './redis-server.js';

reportMissingRedis();

interface Flavour {
  client: RedisClientLike;
  raw: { get(key: string): Promise<string | null>; pttl(key: string): Promise<number>; flush(): Promise<unknown> };
  close(): Promise<unknown>;
}

const FLAVOURS: Array<[string, (port: number) => Promise<Flavour>]> = [
  [
    'node-redis',
    async (port) => {
      const client = await createClient({ url: `redis://127.0.0.1:${port}` }).connect();
      return {
        client,
        raw: { get: (k) => client.get(k), pttl: (k) => client.pTTL(k), flush: () => client.flushAll() },
        close: () => client.close(),
      };
    },
  ],
  [
    'ioredis',
    async (port) => {
      const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
      await client.connect();
      return {
        client,
        raw: { get: (k) => client.get(k), pttl: (k) => client.pttl(k), flush: () => client.flushall() },
        close: () => client.quit(),
      };
    },
  ],
];

describe.skipIf(!hasRedis)('createRedisDedupeStore(client, options) on a real redis-server', () => {
  const redisServer = useRedisServer();

  describe.each(FLAVOURS)('with %s', (_name, connect) => {
    let redis: Flavour;
    let store: DedupeStore;
    beforeAll(async () => {
      redis = await connect(redisServer.port);
      await redis.raw.flush();
      store = createRedisDedupeStore(redis.client, { prefix: 'test:' });
    });
    afterAll(() => redis?.close());

    test('claim → processing → done, under the prefix, with the two TTLs', async () => {
      expect(await store.claim('a')).toBe('claimed');
      expect(await redis.raw.get('test:a')).toBe('processing');
      const processingTtl = await redis.raw.pttl('test:a');
      expect(processingTtl).toBeGreaterThan(4 * 60 * 1000);
      expect(processingTtl).toBeLessThanOrEqual(5 * 60 * 1000);
      expect(await store.claim('a')).toBe('processing');
      await store.complete('a');
      expect(await redis.raw.get('test:a')).toBe('done');
      expect(await redis.raw.pttl('test:a')).toBeGreaterThan(11.9 * 60 * 60 * 1000);
      expect(await store.claim('a')).toBe('done');
    });

    test('release deletes the claim, so the retry is claimed again', async () => {
      expect(await store.claim('b')).toBe('claimed');
      await store.release('b');
      expect(await redis.raw.get('test:b')).toBeNull();
      expect(await store.claim('b')).toBe('claimed');
    });

    test('exactly one of many concurrent claims wins', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => store.claim('c')));
      expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r === 'processing')).toHaveLength(19);
    });

    test('a claim expires after processingTtlMs (a crashed worker)', async () => {
      const short = createRedisDedupeStore(redis.client, { prefix: 'test:', processingTtlMs: 50 });
      expect(await short.claim('d')).toBe('claimed');
      await new Promise((r) => setTimeout(r, 120));
      expect(await short.claim('d')).toBe('claimed');
    });

    test('two handlers sharing the store process a delivery once', async () => {
      const { createHmac } = await import('node:crypto');
      const secret = 'shared-secret';
      const body = JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: 'shared-1', timestamp: new Date().toISOString(), data: {} });
      const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const request = () => new Request('http://127.0.0.1/', { method: 'POST', body, headers: { 'x-svc-signature': signature } });
      let calls = 0;
      const on = () => void calls++;
      const [[, node], [, web]] = ENTRIES;
      expect((await node.createWebhookHandler({ secret, on, dedupe: store })(request())).status).toBe(200);
      expect((await web.createWebhookHandler({ secret, on, dedupe: store })(request())).status).toBe(200);
      expect(calls).toBe(1);
    });
  });
});

test('createRedisDedupeStore throws a [svc-sdk] TypeError for something that is not a client', () => {
  expect(() => createRedisDedupeStore({} as never)).toThrow(/^\[svc-sdk\] createRedisDedupeStore: pass a connected/);
});

test('createRedisDedupeStore throws the same TypeError for no client at all, or one that lacks any one of SET, GET and DEL', () => {
  const method = async () => null;
  const clients = [null, undefined, { get: method, del: method }, { set: method, del: method }, { set: method, get: method }, { set: method, get: method, del: 'DEL' }];
  for (const client of clients) {
    expect(() => createRedisDedupeStore(client as never)).toThrow(/^\[svc-sdk\] createRedisDedupeStore: pass a connected/);
  }
  // The three are enough.
  expect(() => createRedisDedupeStore({ set: method, get: method, del: method })).not.toThrow();
});

/** A client whose SET and GET answer from scripts, recording every call: the store's logic without a server. */
function scriptedClient(sets: unknown[], gets: unknown[]) {
  const calls: unknown[][] = [];
  const client: RedisClientLike = {
    set: async (...args: unknown[]) => (calls.push(['set', ...args]), sets.length ? sets.shift() : 'OK'),
    get: async (key: string) => (calls.push(['get', key]), gets.length ? gets.shift() : null),
    del: async (key: string) => (calls.push(['del', key]), 1),
  };
  return { client, calls };
}

describe('createRedisDedupeStore(client, options): its checks and the claim loop', () => {
  test.each([[{ ttlMs: 0 }], [{ ttlMs: -5 }], [{ processingTtlMs: 0 }], [{ processingTtlMs: Number.NaN }], [{ ttlMs: Number.NaN }]])(
    'throws a [svc-sdk] TypeError for %o',
    (options) => {
      expect(() => createRedisDedupeStore(scriptedClient([], []).client, options)).toThrow(
        /^\[svc-sdk\] createRedisDedupeStore: ttlMs and processingTtlMs must be positive numbers/,
      );
    },
  );

  test('rounds fractional TTLs up to whole ms (Redis PX takes integers) and reports ttlMs', async () => {
    const { client, calls } = scriptedClient([], []);
    const store = createRedisDedupeStore(client, { ttlMs: 1000.2, processingTtlMs: 0.5 });
    expect(store.ttlMs).toBe(1001);
    await store.claim('a');
    await store.complete('a');
    expect(calls).toEqual([
      ['set', 'svc-sdk:webhook:a', 'processing', 'PX', 1, 'NX'],
      ['set', 'svc-sdk:webhook:a', 'done', 'PX', 1001],
    ]);
  });

  test('the default TTLs: 5 minutes for a claim, 12 h 5 min for a processed id (over the 12 h replay window)', async () => {
    const { client, calls } = scriptedClient([], []);
    const store = createRedisDedupeStore(client);
    expect(store.ttlMs).toBe(43_500_000);
    await store.claim('a');
    await store.complete('a');
    expect(calls.map((call) => call[4])).toEqual([300_000, 43_500_000]);
  });

  test('a claim that expires between SET NX and GET is tried again, and then claimed', async () => {
    // SET NX fails (the key exists), then GET finds nothing (it expired in between): try again.
    const { client, calls } = scriptedClient([null, 'OK'], [null]);
    expect(await createRedisDedupeStore(client).claim('x')).toBe('claimed');
    expect(calls.map(([verb]) => verb)).toEqual(['set', 'get', 'set']);
  });

  test('the claim loop gives up after three rounds as "processing" (never spins, never claims twice)', async () => {
    const { client, calls } = scriptedClient([null, null, null, 'OK'], [null, null, null]);
    expect(await createRedisDedupeStore(client).claim('x')).toBe('processing');
    expect(calls.map(([verb]) => verb)).toEqual(['set', 'get', 'set', 'get', 'set', 'get']);
  });

  test.each(['done', 'processing'] as const)('a key found %s by GET after a failed SET NX is reported as it is', async (state) => {
    const { client } = scriptedClient([null], [state]);
    expect(await createRedisDedupeStore(client).claim('x')).toBe(state);
  });
});
