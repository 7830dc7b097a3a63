// createRedisDedupeStore against a real redis-server, through both client libraries it supports.
// The server is a child process on a free loopback port, without persistence, killed afterwards.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRedisDedupeStore, type DedupeStore, type RedisClientLike } from '../../src/webhooks/index.js';
import { ENTRIES } from './entries.js';

const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
if (!hasRedis && process.env.CI) {
  throw new Error('redis-server is missing: .ci/run installs it (apt-get install redis-server)');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
}

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
  let server: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    server = await startRedis(port);
  });
  afterAll(() => {
    server?.kill();
  });

  describe.each(FLAVOURS)('with %s', (_name, connect) => {
    let redis: Flavour;
    let store: DedupeStore;
    beforeAll(async () => {
      redis = await connect(port);
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
