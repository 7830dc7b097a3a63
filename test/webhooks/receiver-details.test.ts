// Details of the receiver that a delivery's answer alone does not show: the fetch handler's body
// read leaves no deadline behind, a declared length over the limit with no body, a request object
// without a constructor; the outcome of a duplicate as the hooks hear it; the Redis store's lease
// renewal (SET XX) through both client libraries, against a real redis-server.
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterEach, describe, expect, test, vi } from 'vitest';
import * as sdk from '../../src/webhooks/index.js';
import { hasRedis, useRedisServer } from './redis-server.js';
import { envelope, sign } from './wire.js';

afterEach(() => {
  vi.useRealTimers();
});

const SECRET = 'whsec_details';

/** A signed delivery as a `Request`, its body given as `body` (a string by default). */
function signed(body = envelope(), init: RequestInit = {}): Request {
  return new Request('http://localhost/webhooks', { method: 'POST', body, headers: { 'x-svc-signature': sign(body, SECRET) }, ...init });
}

describe('the fetch handler\'s body read', () => {
  test('a body read in time forgets its deadline: the deadline timer stops at its next sweep', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, bodyTimeoutMs: 1000 });
    expect((await handler(signed())).status).toBe(200);
    expect(vi.getTimerCount()).toBe(1);
    // One sweep (a tenth of bodyTimeoutMs) finds nothing pending and stops the timer; a deadline left
    // behind would keep it sweeping for the whole timeout.
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a body whose stream fails is 400 unreadable_body, and forgets its deadline too', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, bodyTimeoutMs: 1000 });
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('connection reset'));
      },
    });
    const response = await handler(signed(undefined, { body: failing, duplex: 'half' } as RequestInit));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'unreadable_body' });
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a declared length over maxBodyBytes with no body at all is 413, not a failure to read', async () => {
    const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, maxBodyBytes: 100 });
    const response = await handler(new Request('http://localhost/webhooks', { method: 'POST', headers: { 'content-length': '5000' } }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'body_too_large' });
  });

  test('a request whose prototype names no constructor (a server\'s own request object) is read as any other', async () => {
    const on = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on });
    const body = envelope();
    const request = signed(body, { headers: { 'x-svc-signature': sign(body, SECRET), 'content-length': String(body.length) } });
    Object.setPrototypeOf(request, Object.create(Request.prototype, { constructor: { value: undefined } }));
    expect((await handler(request)).status).toBe(200);
    expect(on).toHaveBeenCalledTimes(1);
  });
});

describe('over Web Crypto (the web entry, whose check answers with a promise)', () => {
  test('a rotated secret is read again on a signature that does not match, as over node:crypto', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let vault = 'whsec_old';
    const secret = vi.fn(async () => vault);
    const handler = sdk.createWebhookHandler({ secret, on() {} });
    const signedWith = (key: string) => {
      const body = envelope();
      return new Request('http://localhost/webhooks', { method: 'POST', body, headers: { 'x-svc-signature': sign(body, key) } });
    };
    expect((await handler(signedWith('whsec_old'))).status).toBe(200);
    vi.setSystemTime(Date.now() + 60_000);
    vault = 'whsec_new';
    expect((await handler(signedWith('whsec_new'))).status).toBe(200);
    expect(secret).toHaveBeenCalledTimes(2);
  });
});

describe('the lease of a claim', () => {
  test('a synchronous on() costs no lease timer; an async one has its lease cleared once it returns', async () => {
    const intervals = vi.spyOn(globalThis, 'setInterval');
    const clears = vi.spyOn(globalThis, 'clearInterval');
    try {
      // processingTtlMs / 3: the lease's period, told apart from the body deadline's sweeps.
      const dedupe = sdk.createMemoryDedupeStore({ processingTtlMs: 300_000 });
      const leases = () => intervals.mock.calls.filter(([, ms]) => ms === 100_000).length;
      const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe });
      expect((await handler(signed())).status).toBe(200);
      expect(leases()).toBe(0);
      const slow = sdk.createWebhookHandler({ secret: SECRET, on: async () => {}, dedupe });
      expect((await slow(signed())).status).toBe(200);
      expect(leases()).toBe(1);
      const lease = intervals.mock.results.find((_, i) => intervals.mock.calls[i]![1] === 100_000)!.value as unknown;
      expect(clears).toHaveBeenCalledWith(lease);
    } finally {
      intervals.mockRestore();
      clears.mockRestore();
    }
  });
});

describe('the outcome of a duplicate, as the hooks hear it', () => {
  test('a delivery processed before: duplicate, 200, with its dedupe state and nothing else', async () => {
    const outcomes: sdk.DeliveryOutcome[] = [];
    const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, hooks: { onOutcome: (outcome) => void outcomes.push(outcome) } });
    const body = envelope('d-twice');
    expect((await handler(signed(body))).status).toBe(200);
    expect((await handler(signed(body))).status).toBe(200);
    const { delivery, durationMs, ...rest } = outcomes[1]!;
    expect(rest).toEqual({ outcome: 'duplicate', status: 200, dedupe: 'done' });
    expect(delivery.event?.delivery_id).toBe('d-twice');
    expect(durationMs).toBeGreaterThanOrEqual(0);
  });
});

describe.skipIf(!hasRedis)('createRedisDedupeStore: renew (the lease of a running on())', () => {
  const redis = useRedisServer();

  const clients: Array<[string, () => Promise<{ client: sdk.RedisClientLike; pttl(key: string): Promise<number>; get(key: string): Promise<string | null>; pexpire(key: string, ms: number): Promise<unknown>; close(): Promise<unknown> }>]> = [
    [
      'node-redis',
      async () => {
        const client = await createClient({ url: `redis://127.0.0.1:${redis.port}` }).connect();
        return { client, pttl: (k) => client.pTTL(k), get: (k) => client.get(k), pexpire: (k, ms) => client.pExpire(k, ms), close: () => client.close() };
      },
    ],
    [
      'ioredis',
      async () => {
        const client = new Redis({ port: redis.port, host: '127.0.0.1', lazyConnect: true });
        await client.connect();
        return { client, pttl: (k) => client.pttl(k), get: (k) => client.get(k), pexpire: (k, ms) => client.pexpire(k, ms), close: () => client.quit() };
      },
    ],
  ];

  test.each(clients)('with %s: a held claim is renewed for another processingTtlMs (true); a claim gone is not brought back (false)', async (name, connect) => {
    const redis = await connect();
    try {
      const store = sdk.createRedisDedupeStore(redis.client, { prefix: `renew:${name}:`, processingTtlMs: 60_000 });
      expect(await store.claim('held')).toBe('claimed');
      // Most of the claim's time gone: the renewal gives it the whole processingTtlMs again.
      await redis.pexpire(`renew:${name}:held`, 1000);
      expect(await store.renew!('held')).toBe(true);
      expect(await redis.get(`renew:${name}:held`)).toBe('processing');
      expect(await redis.pttl(`renew:${name}:held`)).toBeGreaterThan(50_000);
      expect(await store.renew!('gone')).toBe(false);
      expect(await redis.get(`renew:${name}:gone`)).toBeNull();
    } finally {
      await redis.close();
    }
  });
});

describe('onVerificationError is an observer', () => {
  test.each([
    ['throws', () => {
      throw new Error('audit log down');
    }],
    ['rejects', () => Promise.reject(new Error('audit log down'))],
  ])('one that %s leaves the answer 401, and no rejection goes unhandled', async (_, onVerificationError) => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, onVerificationError: onVerificationError as () => void });
      const response = await handler(new Request('http://localhost/webhooks', { method: 'POST', body: envelope(), headers: { 'x-svc-signature': sign(envelope(), 'whsec_other') } }));
      expect({ status: response.status, body: await response.json() }).toEqual({ status: 401, body: { error: 'invalid_signature' } });
      // Node reports an unhandled rejection once the microtasks after it have run.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
