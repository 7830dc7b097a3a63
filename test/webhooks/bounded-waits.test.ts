// Every wait of the receiver is bounded, over real sockets (issue 32): a secret function that hangs,
// a rotated secret, a secret with a trailing newline, a missing secret under a flood, a lease lost
// while Redis is paused, and bodies trickled into the fetch handler behind @hono/node-server.
import type { ChildProcess } from 'node:child_process';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { serve as honoServe } from '@hono/node-server';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import * as sdk from '../../src/webhooks/index.node.js';
import type { WebhookHandler } from '../../src/webhooks/index.js';
import { freePort, hasRedis, reportMissingRedis, startRedis } from './redis-server.js';
import { deliver, envelope, serve, sign, SECRET, type Served } from './wire.js';

let served: Served | undefined;
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await served?.close();
  served = undefined;
});

/** POSTs `body` signed with `secret`; the status and JSON answer. */
async function deliverSigned(url: string, secret: string, body = envelope()) {
  const response = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-signature': sign(body, secret) } });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('a secret function that hangs, then recovers', () => {
  test('past secretTimeoutMs the delivery is answered 500 naming the option; the lookup is dropped and the next delivery asks again (200)', async () => {
    const secret = vi.fn<() => Promise<string>>().mockReturnValueOnce(new Promise(() => {})).mockResolvedValue(SECRET);
    const on = vi.fn();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret, on, secretTimeoutMs: 200 })));
    const started = performance.now();
    // Two deliveries during the hang: they share the one pending call, and both are answered.
    const during = await Promise.all([deliver(served.url), deliver(served.url)]);
    const waited = performance.now() - started;
    const failed = { status: 500, body: { error: '[svc-sdk] createWebhookHandler: the secret function did not answer within 200 ms (secretTimeoutMs)' } };
    expect(during).toEqual([failed, failed]);
    expect(waited).toBeGreaterThanOrEqual(190);
    expect(waited).toBeLessThan(1500);
    expect(secret).toHaveBeenCalledTimes(1);
    expect(await deliver(served.url)).toEqual({ status: 200, body: { received: true } });
    expect(secret).toHaveBeenCalledTimes(2);
    expect(on).toHaveBeenCalledTimes(1);
    // Known now: not asked again.
    expect((await deliver(served.url)).status).toBe(200);
    expect(secret).toHaveBeenCalledTimes(2);
  });

  test('a bad secretTimeoutMs throws when the handler is made, naming the option', () => {
    for (const secretTimeoutMs of [0, -1, Number.NaN, 2 ** 31, '5000' as never]) {
      expect(() => sdk.createWebhookHandler({ on() {}, secretTimeoutMs })).toThrow('[svc-sdk] createWebhookHandler: secretTimeoutMs must be a number of ms > 0');
    }
  });
});

describe('a rotated secret', () => {
  test('a delivery signed with the new secret has the secret function read again, and is processed; forged ones make it read at most once a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let vault = 'whsec_old';
    const secret = vi.fn(async () => vault);
    const on = vi.fn();
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret, on })));
    expect((await deliverSigned(served.url, 'whsec_old')).status).toBe(200);
    expect(secret).toHaveBeenCalledTimes(1);
    // Within a minute of the last call, the vault is not asked again.
    expect((await deliverSigned(served.url, 'whsec_new')).status).toBe(401);
    expect(secret).toHaveBeenCalledTimes(1);
    vi.setSystemTime(Date.now() + 60_000);
    vault = 'whsec_new';
    expect(await deliverSigned(served.url, 'whsec_new')).toEqual({ status: 200, body: { received: true } });
    expect(secret).toHaveBeenCalledTimes(2);
    expect(on).toHaveBeenCalledTimes(2);
    // The new secret is kept: the old one is refused, and a flood of forgeries within the minute costs the vault nothing.
    for (let i = 0; i < 5; i++) expect(await deliverSigned(served.url, 'whsec_forged')).toEqual({ status: 401, body: { error: 'invalid_signature' } });
    expect(secret).toHaveBeenCalledTimes(2);
    expect((await deliverSigned(served.url, 'whsec_new')).status).toBe(200);
    // Refusals that are not about the signature never ask the vault.
    expect((await deliverSigned(served.url, 'whsec_new', envelope(undefined, '2001-01-01T00:00:00Z'))).status).toBe(400);
    expect(secret).toHaveBeenCalledTimes(2);
    // A minute after the last call, to the millisecond, the vault may be asked again.
    vi.setSystemTime(Date.now() + 59_999);
    vault = 'whsec_newer';
    expect((await deliverSigned(served.url, 'whsec_newer')).status).toBe(401);
    expect(secret).toHaveBeenCalledTimes(2);
    vi.setSystemTime(Date.now() + 1);
    expect((await deliverSigned(served.url, 'whsec_newer')).status).toBe(200);
    expect(secret).toHaveBeenCalledTimes(3);
  });

  test('only a signature that matches none of the secrets has the function read again: not a good delivery, nor any other refusal, however late', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const secret = vi.fn(async () => SECRET);
    const on = vi.fn();
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret, on })));
    expect((await deliver(served.url)).status).toBe(200);
    expect(secret).toHaveBeenCalledTimes(1);
    // A minute later each of these could have the vault asked again: none may.
    vi.setSystemTime(Date.now() + 60_000);
    expect(await deliver(served.url)).toEqual({ status: 200, body: { received: true } });
    expect(await deliver(served.url, envelope(undefined, '2001-01-01T00:00:00Z'))).toEqual({ status: 400, body: { error: 'stale_timestamp' } });
    expect((await deliver(served.url, '{"event":"ping.test"}')).status).toBe(400);
    const unsigned = await fetch(served.url, { method: 'POST', body: envelope() });
    expect({ status: unsigned.status, body: await unsigned.json() }).toEqual({ status: 401, body: { error: 'missing_signature' } });
    expect(secret).toHaveBeenCalledTimes(1);
    expect(on).toHaveBeenCalledTimes(2);
    // The one refusal that may be a rotation does.
    expect((await deliverSigned(served.url, 'whsec_forged')).status).toBe(401);
    expect(secret).toHaveBeenCalledTimes(2);
  });

  test('a re-read that gives the same secret, fails or hangs leaves the delivery refused (401) and the known secret in use', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const secret = vi
      .fn<() => Promise<string>>()
      .mockResolvedValueOnce(SECRET)
      .mockResolvedValueOnce(SECRET)
      .mockRejectedValueOnce(new Error('vault down'))
      .mockReturnValueOnce(new Promise(() => {}));
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret, on() {}, secretTimeoutMs: 100 })));
    expect((await deliver(served.url)).status).toBe(200);
    for (let call = 2; call <= 4; call++) {
      vi.setSystemTime(Date.now() + 60_001);
      expect(await deliverSigned(served.url, 'whsec_forged')).toEqual({ status: 401, body: { error: 'invalid_signature' } });
      expect(secret).toHaveBeenCalledTimes(call);
      expect((await deliver(served.url)).status).toBe(200);
    }
  });

  test('a static secret is never re-read (nothing to rotate): a wrong signature is 401, nothing logged', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on() {} })));
    expect((await deliverSigned(served.url, 'whsec_forged')).status).toBe(401);
    expect(log).not.toHaveBeenCalled();
  });

  test('SVC_WEBHOOK_SECRET and a given secret (trimmed) are not functions: never read again, even a minute after a signature that did not match', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubEnv('SVC_WEBHOOK_SECRET', SECRET);
    try {
      for (const secret of [undefined, `${SECRET}\n`]) {
        served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret, on() {} })));
        expect((await deliver(served.url)).status).toBe(200);
        vi.stubEnv('SVC_WEBHOOK_SECRET', 'whsec_new');
        vi.setSystemTime(Date.now() + 60_000);
        expect(await deliverSigned(served.url, 'whsec_new')).toEqual({ status: 401, body: { error: 'invalid_signature' } });
        expect((await deliver(served.url)).status).toBe(200);
        vi.stubEnv('SVC_WEBHOOK_SECRET', SECRET);
        await served.close();
        served = undefined;
      }
      expect(log).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  test('the deadline\'s timer is cleared once the secret function answers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const handler = sdk.createWebhookHandler({ secret: async () => SECRET, on() {} });
    const body = envelope();
    const response = await handler(new Request('http://localhost/webhooks', { method: 'POST', body, headers: { 'x-svc-signature': sign(body) } }));
    expect(response.status).toBe(200);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a secret with surrounding whitespace', () => {
  const cases: Array<[string, () => sdk.WebhookHandlerOptions['secret']]> = [
    ['a function returning it', () => async () => `${SECRET}\n`],
    ['the secret itself', () => `  ${SECRET}\r\n`],
    ['SVC_WEBHOOK_SECRET', () => undefined],
  ];
  test('a clean secret gives no warning; one read again with its whitespace still warns only once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on() {} })));
    expect((await deliver(served.url)).status).toBe(200);
    expect(warn).not.toHaveBeenCalled();
    await served.close();
    const secret = vi.fn(async () => `${SECRET}\n`);
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret, on() {} })));
    for (let i = 0; i < 3; i++) {
      expect((await deliverSigned(served.url, 'whsec_forged')).status).toBe(401);
      vi.setSystemTime(Date.now() + 60_000);
    }
    expect(secret).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  test('a clean secret from a function or SVC_WEBHOOK_SECRET gives no warning either', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubEnv('SVC_WEBHOOK_SECRET', SECRET);
    try {
      for (const secret of [async () => SECRET, () => ['whsec_other', SECRET], undefined]) {
        served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret, on() {} })));
        expect((await deliver(served.url)).status).toBe(200);
        await served.close();
        served = undefined;
      }
      expect(warn).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  test('one secret of a rotation\'s list with whitespace is enough to warn (once), and each is used trimmed', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    for (const secret of [[SECRET, ' whsec_next\n'], async () => ['whsec_next\n', SECRET]]) {
      served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret, on() {} })));
      expect((await deliver(served.url)).status).toBe(200);
      expect((await deliverSigned(served.url, 'whsec_next')).status).toBe(200);
      await served.close();
      served = undefined;
    }
    expect(warn).toHaveBeenCalledTimes(2);
  });

  test.each(cases)('%s: used trimmed, with one warning that never shows the secret', async (_name, secret) => {
    vi.stubEnv('SVC_WEBHOOK_SECRET', `${SECRET}\n`);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: secret(), on() {} })));
      expect(await deliver(served.url)).toEqual({ status: 200, body: { received: true } });
      expect((await deliver(served.url)).status).toBe(200);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/^\[svc-sdk\] createWebhookHandler: the secret has whitespace around it/);
      expect(String(warn.mock.calls[0]![0])).not.toContain(SECRET);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  test('a secret that is only whitespace is no secret: given, it throws when the handler is made; from a function, 500', async () => {
    expect(() => sdk.createWebhookHandler({ secret: ' \n', on() {} })).toThrow('[svc-sdk] createWebhookHandler: secret must be');
    vi.spyOn(console, 'error').mockImplementation(() => {});
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: () => '\n', on() {} })));
    expect(await deliver(served.url)).toEqual({
      status: 500,
      body: { error: '[svc-sdk] createWebhookHandler: the secret function returned no secret: return the secret returned when the webhook was registered' },
    });
  });
});

describe('a secret function that answers something that is not a secret', () => {
  test.each([
    ['a number', () => 42],
    ['a list holding a number', () => [SECRET, 7]],
    ['an object', async () => ({ secret: SECRET })],
  ])('%s: 500 with the rule a secret must follow (as a given one would throw), logged, never a TypeError', async (_name, secret) => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: secret as never, on() {} })));
    const { status, body } = await deliver(served.url);
    expect(status).toBe(500);
    expect((body as { error: string }).error).toMatch(/^\[svc-sdk\] createWebhookHandler: secret must be the webhook's signing secret, never empty \(an array of them while rotating\)/);
    expect(log).toHaveBeenCalledWith((body as { error: string }).error);
  });
});

describe('a missing secret under a flood', () => {
  test('every request is answered 500 naming the fix, but logged once a minute, not once per request', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.stubEnv('SVC_WEBHOOK_SECRET', '');
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ on() {} })));
      for (let i = 0; i < 20; i++) {
        const response = await fetch(served.url, { method: 'POST', body: 'junk' });
        expect(response.status).toBe(500);
        expect(((await response.json()) as { error: string }).error).toContain('set SVC_WEBHOOK_SECRET');
      }
      expect(log).toHaveBeenCalledTimes(1);
      expect(String(log.mock.calls[0]![0])).toContain('set SVC_WEBHOOK_SECRET');
      vi.setSystemTime(Date.now() + 59_999);
      expect((await fetch(served.url, { method: 'POST', body: 'junk' })).status).toBe(500);
      expect(log).toHaveBeenCalledTimes(1);
      vi.setSystemTime(Date.now() + 1);
      expect((await fetch(served.url, { method: 'POST', body: 'junk' })).status).toBe(500);
      expect(log).toHaveBeenCalledTimes(2);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('a lease lost while on() runs', () => {
  test('a renewal that finds the claim gone is reported to onError once, and the answer stands (200)', async () => {
    const store: sdk.DedupeStore = { processingTtlMs: 90, claim: () => 'claimed', complete() {}, release() {}, renew: vi.fn(async () => false) };
    const onError = vi.fn();
    served = await serve(
      sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on: () => new Promise((resolve) => setTimeout(resolve, 200)), dedupe: store, onError })),
    );
    expect(await deliver(served.url, envelope('d-lost'))).toEqual({ status: 200, body: { received: true } });
    expect(vi.mocked(store.renew!).mock.calls.length).toBeGreaterThanOrEqual(3);
    expect(onError).toHaveBeenCalledTimes(1);
    const [error, event] = onError.mock.calls[0]!;
    expect((error as Error).message).toBe(
      '[svc-sdk] webhook delivery d-lost: its claim could not be renewed while on() ran (the store no longer held it); once it expires (processingTtlMs), a retry may run on() beside this one',
    );
    expect(event).toMatchObject({ delivery_id: 'd-lost' });
  });

  test('an on() that fails stops its renewals: its claim is released, and nothing renews it after the answer', async () => {
    const renew = vi.fn(async () => true);
    const release = vi.fn();
    const store: sdk.DedupeStore = { processingTtlMs: 60, claim: () => 'claimed', complete() {}, release, renew };
    const on = () => new Promise((_, reject) => setTimeout(reject, 100, new Error('index down')));
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store, onError() {} })));
    expect(await deliver(served.url, envelope('d-failed'))).toEqual({ status: 500, body: { error: 'handler_failed' } });
    expect(release).toHaveBeenCalledWith('d-failed');
    const renewals = renew.mock.calls.length;
    expect(renewals).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(renew).toHaveBeenCalledTimes(renewals);
  });

  test('a store without renew has no lease, and a renew that answers at once (nothing, or true) is a renewal that held: nothing reported', async () => {
    const onError = vi.fn();
    const on = () => new Promise((resolve) => setTimeout(resolve, 120));
    const renew = vi.fn<() => void | boolean>().mockReturnValueOnce(undefined).mockReturnValue(true);
    const stores: sdk.DedupeStore[] = [
      { processingTtlMs: 30, claim: () => 'claimed', complete() {}, release() {} },
      { processingTtlMs: 30, claim: () => 'claimed', complete() {}, release() {}, renew },
    ];
    for (const dedupe of stores) {
      served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, dedupe, onError })));
      expect(await deliver(served.url)).toEqual({ status: 200, body: { received: true } });
      await served.close();
      served = undefined;
    }
    expect(renew.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(onError).not.toHaveBeenCalled();
  });

  test('renewals that succeed report nothing', async () => {
    const store: sdk.DedupeStore = { processingTtlMs: 90, claim: () => 'claimed', complete() {}, release() {}, renew: vi.fn(async () => true) };
    const onError = vi.fn();
    served = await serve(
      sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on: () => new Promise((resolve) => setTimeout(resolve, 200)), dedupe: store, onError })),
    );
    expect((await deliver(served.url)).status).toBe(200);
    expect(vi.mocked(store.renew!).mock.calls.length).toBeGreaterThanOrEqual(3);
    expect(onError).not.toHaveBeenCalled();
  });
});

describe.skipIf(!hasRedis)('a lease lost while on() runs, with a real redis-server paused (SIGSTOP) past processingTtlMs', () => {
  reportMissingRedis();
  let server: ChildProcess;
  let redis: Redis;
  beforeAll(async () => {
    const port = await freePort();
    server = await startRedis(port);
    redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: null });
    await redis.connect();
  });
  afterAll(async () => {
    server?.kill('SIGCONT');
    await redis?.quit();
    server?.kill();
  });

  test('the renewals that time out are noticed and reported to onError, naming the store call that failed; the answer stands', async () => {
    const onError = vi.fn();
    const store = sdk.createRedisDedupeStore(redis, { prefix: 'paused:', processingTtlMs: 600 });
    const on = async () => {
      // Claimed: now Redis stops answering for longer than processingTtlMs.
      server.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 1200));
      server.kill('SIGCONT');
    };
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store, onError, storeTimeoutMs: 150 })));
    expect(await deliver(served.url, envelope('d-paused'))).toEqual({ status: 200, body: { received: true } });
    await vi.waitFor(() => expect(onError).toHaveBeenCalledTimes(1));
    const [error] = onError.mock.calls[0]!;
    expect((error as Error).message).toMatch(/^\[svc-sdk\] webhook delivery d-paused: its claim could not be renewed while on\(\) ran \(StoreTimeoutError\)/);
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(((error as Error).cause as Error).message).toContain('renew() did not answer within 150 ms (storeTimeoutMs)');
    // Redis is back: the delivery was recorded, so the service's retry is acknowledged without on().
    await vi.waitFor(async () => expect(await redis.get('paused:d-paused')).toBe('done'));
  }, 10_000);
});

describe('the fetch handler\'s own body deadline, behind @hono/node-server', () => {
  /** Serves a fetch handler with @hono/node-server on 127.0.0.1. */
  function serveFetch(fetch: WebhookHandler): Promise<{ port: number; close(): Promise<void> }> {
    return new Promise((resolve) => {
      const server = honoServe({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
        resolve({
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              (server as unknown as { closeAllConnections(): void }).closeAllConnections();
            }),
        }),
      );
    });
  }

  /** Opens a connection that sends its headers and `first` body bytes, then nothing; resolves with what came back once the server closed it. */
  function trickle(port: number, chunked: boolean): Promise<{ answer: string; ms: number }> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const socket: Socket = connect(port, '127.0.0.1', () => {
        const length = chunked ? 'transfer-encoding: chunked\r\n\r\n5\r\n{"eve' : 'content-length: 1000\r\n\r\n{"eve';
        socket.write(`POST /webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-svc-signature: sha256=${'0'.repeat(64)}\r\n${length}`);
      });
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('close', () => resolve({ answer, ms: performance.now() - started }));
      socket.on('error', reject);
    });
  }

  test('100 trickling senders (declared length or chunked) are each answered 408 body_timeout at bodyTimeoutMs, and their connections closed', async () => {
    const onVerificationError = vi.fn();
    const on = vi.fn();
    const server = await serveFetch(sdk.createWebhookHandler({ secret: SECRET, on, bodyTimeoutMs: 300, onVerificationError }));
    try {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => trickle(server.port, i % 4 === 0)));
      for (const { answer, ms } of results) {
        expect(answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(answer.toLowerCase()).toContain('connection: close');
        expect(answer).toContain('{"error":"body_timeout"}');
        expect(ms).toBeGreaterThanOrEqual(290);
        expect(ms).toBeLessThan(3000);
      }
      expect(onVerificationError).toHaveBeenCalledTimes(100);
      expect(onVerificationError).toHaveBeenCalledWith('body_timeout', expect.any(Request));
      expect(on).not.toHaveBeenCalled();
    } finally {
      await server.close();
    }
  }, 15_000);

  test('a body that arrives in time is processed: the deadline is forgotten once it has come', async () => {
    const on = vi.fn();
    const server = await serveFetch(sdk.createWebhookHandler({ secret: SECRET, on, bodyTimeoutMs: 300 }));
    try {
      const url = `http://127.0.0.1:${server.port}/webhooks`;
      for (let i = 0; i < 3; i++) expect(await deliver(url)).toEqual({ status: 200, body: { received: true } });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await deliver(url)).toEqual({ status: 200, body: { received: true } });
      expect(on).toHaveBeenCalledTimes(4);
    } finally {
      await server.close();
    }
  });

  test('toNodeListener: a GET whose body stalls is answered 405 at bodyTimeoutMs, and its connection closed (its body was never read)', async () => {
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on() {}, bodyTimeoutMs: 200 })));
    const port = served.port;
    const { answer, ms } = await new Promise<{ answer: string; ms: number }>((resolve, reject) => {
      const started = performance.now();
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 1000\r\n\r\n{"eve'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve({ answer: text, ms: performance.now() - started }));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer.toLowerCase()).toContain('allow: post');
    expect(ms).toBeLessThan(1500);
  });

  test('toNodeListener takes the handler\'s bodyTimeoutMs unless given its own; a bad one throws naming the option', async () => {
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on() {}, bodyTimeoutMs: 200 })));
    const { answer, ms } = await trickle(served.port, false);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeLessThan(1500);
    for (const bodyTimeoutMs of [0, Number.NaN, 2 ** 31]) {
      expect(() => sdk.createWebhookHandler({ secret: SECRET, on() {}, bodyTimeoutMs })).toThrow('[svc-sdk] createWebhookHandler: bodyTimeoutMs must be a number of ms > 0');
    }
  });
});
