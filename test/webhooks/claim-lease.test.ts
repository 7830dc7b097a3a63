// A claim is a lease: while on() runs, its claim is renewed (in Redis and in memory), so the
// service's retry of a delivery whose on() outlives processingTtlMs is answered 409 rather than run
// beside it; a receiver that crashed stops renewing, and its claim still expires after processingTtlMs.
import type { ChildProcess } from 'node:child_process';
import { createClient } from 'redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import * as sdk from '../../src/webhooks/index.node.js';
import type { DedupeStore } from '../../src/webhooks/index.js';
import { freePort, hasRedis, reportMissingRedis, startRedis } from './redis-server.js';
import { deliver, envelope, serve, SECRET } from './wire.js';

reportMissingRedis();

// Long enough that a loaded machine (the full suite on 2 cores) never stalls past two renewals (every 333 ms).
const PROCESSING_TTL_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type StoreMaker = (prefix: string) => DedupeStore;

/** The lease, through toNodeListener on node:http, with the given store. */
function leaseTests(makeStore: () => StoreMaker) {
  test('a slow on() keeps its claim: a retry while it runs, after processingTtlMs, is 409; on() runs once', async () => {
    const running: Array<() => void> = [];
    const finish = () => running.forEach((resolve) => resolve());
    const on = vi.fn(() => new Promise<void>((resolve) => void running.push(resolve)));
    const store = makeStore()(`lease-${crypto.randomUUID()}:`);
    const served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store })));
    try {
      const body = envelope();
      const first = deliver(served.url, body);
      await vi.waitFor(() => expect(on).toHaveBeenCalledTimes(1));
      // Two and a half processingTtlMs later the claim would long have expired without its renewals.
      await sleep(2.5 * PROCESSING_TTL_MS);
      const retry = deliver(served.url, body);
      await sleep(100);
      // Without the lease the retry would be claimed and run beside the first.
      expect(on).toHaveBeenCalledTimes(1);
      finish();
      expect(await retry).toEqual({ status: 409, body: { error: 'delivery_in_progress' } });
      expect(await first).toEqual({ status: 200, body: { received: true } });
      expect(await deliver(served.url, body)).toEqual({ status: 200, body: { received: true } });
      expect(on).toHaveBeenCalledTimes(1);
    } finally {
      await served.close();
    }
  });

  test("a crashed receiver's claim is not renewed: it expires after processingTtlMs and the retry is processed", async () => {
    const on = vi.fn();
    const store = makeStore()(`crash-${crypto.randomUUID()}:`);
    const served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store })));
    try {
      const body = envelope();
      // The claim of a receiver that died while processing: nobody renews it.
      expect(await store.claim((JSON.parse(body) as { delivery_id: string }).delivery_id)).toBe('claimed');
      expect((await deliver(served.url, body)).status).toBe(409);
      await sleep(PROCESSING_TTL_MS + 100);
      expect(await deliver(served.url, body)).toEqual({ status: 200, body: { received: true } });
      expect(on).toHaveBeenCalledTimes(1);
    } finally {
      await served.close();
    }
  });
}

describe('in memory', () => {
  leaseTests(() => () => sdk.createMemoryDedupeStore({ processingTtlMs: PROCESSING_TTL_MS }));
});

describe.skipIf(!hasRedis)('in Redis (a real redis-server)', () => {
  let server: ChildProcess;
  let port: number;
  const closers: Array<() => unknown> = [];
  beforeAll(async () => {
    port = await freePort();
    server = await startRedis(port);
  });
  afterAll(async () => {
    for (const close of closers) await close();
    server?.kill();
  });

  describe('with node-redis', () => {
    let client: Awaited<ReturnType<typeof connectNodeRedis>>;
    const connectNodeRedis = () => createClient({ url: `redis://127.0.0.1:${port}` }).connect();
    beforeAll(async () => {
      client = await connectNodeRedis();
      closers.push(() => client.close());
    });
    leaseTests(() => (prefix) => sdk.createRedisDedupeStore(client, { prefix, processingTtlMs: PROCESSING_TTL_MS }));
  });

  describe('with ioredis', () => {
    let client: Redis;
    beforeAll(async () => {
      client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
      await client.connect();
      closers.push(() => client.quit());
    });
    leaseTests(() => (prefix) => sdk.createRedisDedupeStore(client, { prefix, processingTtlMs: PROCESSING_TTL_MS }));

    test('renewal is SET XX: it extends a live claim and never brings an expired one back', async () => {
      const store = sdk.createRedisDedupeStore(client, { prefix: 'renew:', processingTtlMs: 60_000 });
      expect(await store.claim('live')).toBe('claimed');
      await client.pexpire('renew:live', 1000);
      await store.renew!('live');
      expect(await client.pttl('renew:live')).toBeGreaterThan(59_000);
      await store.renew!('gone');
      expect(await client.exists('renew:gone')).toBe(0);
    });
  });
});

describe('the memory store renews too', () => {
  test('renew extends a live claim and never brings a released one back', () => {
    vi.useFakeTimers();
    try {
      const store = sdk.createMemoryDedupeStore({ processingTtlMs: 1000 });
      expect(store.claim('a')).toBe('claimed');
      vi.advanceTimersByTime(900);
      store.renew!('a');
      vi.advanceTimersByTime(900);
      expect(store.claim('a')).toBe('processing');
      vi.advanceTimersByTime(101);
      expect(store.claim('a')).toBe('claimed');
      store.release('a');
      store.renew!('a');
      expect(store.claim('a')).toBe('claimed');
    } finally {
      vi.useRealTimers();
    }
  });
});
