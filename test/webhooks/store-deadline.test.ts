// Every dedupe store call has a deadline (storeTimeoutMs): a Redis that is reachable but silent
// (a real redis-server paused with SIGSTOP, or a TCP peer that accepts and never answers) fails a
// delivery with 500 instead of leaving it open, and a claim that lands late is released, so the
// service's retry is processed. Both client libraries, over real sockets.
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import * as sdk from '../../src/webhooks/index.node.js';
import type { RedisClientLike } from '../../src/webhooks/index.js';
import { hasRedis, reportMissingRedis, useRedisServer } from './redis-server.js';
import { deliver, envelope, serve } from './wire.js';

reportMissingRedis();

interface Client {
  client: RedisClientLike;
  get(key: string): Promise<string | null>;
  close(): void;
}

// Neither is awaited to connect: against a silent peer the connection never becomes ready, and
// both libraries queue the commands meanwhile (the "unbounded retries" case).
const CLIENTS: Array<[string, (port: number) => Client]> = [
  [
    'node-redis',
    (port) => {
      const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
      client.on('error', () => {});
      client.connect().catch(() => {});
      return { client, get: (key) => client.get(key), close: () => void client.destroy() };
    },
  ],
  [
    'ioredis',
    (port) => {
      const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: null, lazyConnect: false });
      client.on('error', () => {});
      return { client, get: (key) => client.get(key), close: () => client.disconnect() };
    },
  ],
];

// Far above a Redis round trip even on a loaded machine, so only a silent store misses it.
const STORE_TIMEOUT_MS = 1000;

function receiver(client: RedisClientLike) {
  const on = vi.fn();
  const onError = vi.fn();
  const handler = sdk.createWebhookHandler({
    secret: 'whsec_wire_secret',
    on,
    onError,
    storeTimeoutMs: STORE_TIMEOUT_MS,
    dedupe: sdk.createRedisDedupeStore(client, { prefix: 'deadline:' }),
  });
  return { on, onError, listener: sdk.toNodeListener(handler) };
}

describe.skipIf(!hasRedis)('storeTimeoutMs: a redis-server paused with SIGSTOP', () => {
  const redis = useRedisServer();

  test.each(CLIENTS)('with %s: answers 500 within the deadline, reports it, and the retry is processed once Redis wakes', async (_name, connect) => {
    const redisClient = connect(redis.port);
    const { on, onError, listener } = receiver(redisClient.client);
    const served = await serve(listener);
    try {
      await redisClient.get('warm-up'); // connected and ready
      const body = envelope();
      const id = (JSON.parse(body) as { delivery_id: string }).delivery_id;
      redis.process.kill('SIGSTOP');
      let answers;
      try {
        // Twenty at once: every one is answered, none is left open.
        answers = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(served.url, i ? envelope() : body)));
      } finally {
        redis.process.kill('SIGCONT');
      }
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(500));
      expect(answers[0]!.body).toEqual({ error: 'dedupe_store_failed' });
      expect(on).not.toHaveBeenCalled();
      expect(onError).toHaveBeenCalledWith(
        expect.objectContaining({
          name: 'StoreTimeoutError',
          message: `[svc-sdk] webhook dedupe: the store's claim() did not answer within ${STORE_TIMEOUT_MS} ms (storeTimeoutMs)`,
        }),
        expect.objectContaining({ delivery_id: id }),
      );
      // Awake: the queued claim ran, and the release queued behind it removed it.
      await vi.waitFor(async () => expect(await redisClient.get(`deadline:${id}`)).toBeNull(), { timeout: 5000 });
      // The service's retry is processed, not answered 409 for processingTtlMs.
      expect(await deliver(served.url, body)).toEqual({ status: 200, body: { received: true } });
      expect(on).toHaveBeenCalledTimes(1);
    } finally {
      await served.close();
      redisClient.close();
    }
  });
});

describe('storeTimeoutMs: a TCP peer that accepts and never answers', () => {
  let peer: Server;
  let port: number;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    peer = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      // Reads everything, answers nothing.
      socket.resume();
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    port = (peer.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => peer.close(resolve));
  });

  test.each(CLIENTS)('with %s: every delivery is answered 500 and reported, on() never runs', async (_name, connect) => {
    const redisClient = connect(port);
    const { on, onError, listener } = receiver(redisClient.client);
    const served = await serve(listener);
    try {
      const answers = await Promise.all(Array.from({ length: 20 }, () => deliver(served.url)));
      expect(answers).toEqual(Array(20).fill({ status: 500, body: { error: 'dedupe_store_failed' } }));
      expect(on).not.toHaveBeenCalled();
      expect(onError).toHaveBeenCalledTimes(20);
      expect(onError.mock.calls[0]![0]).toBeInstanceOf(Error);
      expect(String(onError.mock.calls[0]![0])).toContain(`did not answer within ${STORE_TIMEOUT_MS} ms`);
    } finally {
      await served.close();
      redisClient.close();
    }
  });
});
