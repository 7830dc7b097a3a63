// The receiver over real sockets: zoneless timestamps refused, a throwing waitUntil behind
// @hono/node-server, the secret resolved at the first delivery (SVC_WEBHOOK_SECRET or a function),
// and a wrapped handler served by toNodeListener.
import type { AddressInfo } from 'node:net';
import { serve as honoServe } from '@hono/node-server';
import { afterEach, describe, expect, test, vi } from 'vitest';
import * as sdk from '../../src/webhooks/index.node.js';
import type { DedupeStore, WebhookHandler } from '../../src/webhooks/index.js';
import { deliver, envelope, serve, SECRET, type Served } from './wire.js';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** Serves a fetch handler with @hono/node-server on 127.0.0.1. */
async function serveFetch(fetch: WebhookHandler): Promise<Served> {
  return new Promise((resolve) => {
    const server = honoServe({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
      resolve({
        url: `http://127.0.0.1:${info.port}/webhooks`,
        port: info.port,
        server: server as never,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    );
  });
}

describe('timestamps must carry Z or an offset', () => {
  test('a delivery stamped now without a zone: 400 invalid_timestamp, whatever this machine\'s zone; with an offset: 200', async () => {
    const on = vi.fn();
    const onVerificationError = vi.fn();
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, onVerificationError })));
    const now = new Date().toISOString();
    expect(await deliver(served.url, envelope(undefined, now.slice(0, -1)))).toEqual({ status: 400, body: { error: 'invalid_timestamp' } });
    expect(onVerificationError).toHaveBeenCalledWith('invalid_timestamp', expect.any(Request));
    expect(await deliver(served.url, envelope(undefined, now.replace('Z', '+00:00')))).toEqual({ status: 200, body: { received: true } });
    expect(on).toHaveBeenCalledTimes(1);
  });
});

describe('a waitUntil that throws, behind @hono/node-server', () => {
  test('the answer waits for the recording and stays 200; the retry is acknowledged without on()', async () => {
    const done = new Set<string>();
    const store: DedupeStore = {
      claim: async (id) => (done.has(id) ? 'done' : 'claimed'),
      complete: async (id) => void done.add(id),
      release: async () => {},
    };
    const on = vi.fn();
    // ctx.waitUntil passed unbound, as it throws on Workers.
    const waitUntil = function (this: unknown) {
      if (this === undefined) throw new TypeError('Illegal invocation');
    };
    served = await serveFetch(sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store, waitUntil }));
    const body = envelope();
    expect(await deliver(served.url, body)).toEqual({ status: 200, body: { received: true } });
    expect(await deliver(served.url, body)).toEqual({ status: 200, body: { received: true } });
    expect(on).toHaveBeenCalledTimes(1);
  });
});

describe('the secret is resolved when the first delivery arrives', () => {
  const saved = process.env.SVC_WEBHOOK_SECRET;
  afterEach(() => {
    if (saved === undefined) delete process.env.SVC_WEBHOOK_SECRET;
    else process.env.SVC_WEBHOOK_SECRET = saved;
  });

  test('omitted and SVC_WEBHOOK_SECRET unset: made without a throw (as during next build); 500 naming SVC_WEBHOOK_SECRET, logged; 200 once it is set', async () => {
    delete process.env.SVC_WEBHOOK_SECRET;
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const on = vi.fn();
      const handler = sdk.createWebhookHandler({ on });
      served = await serve(sdk.toNodeListener(handler));
      const missing = await deliver(served.url);
      expect(missing.status).toBe(500);
      const message = (missing.body as { error: string }).error;
      expect(message).toMatch(/^\[svc-sdk\] createWebhookHandler: no signing secret: set SVC_WEBHOOK_SECRET to the secret returned when the webhook was registered/);
      expect(log).toHaveBeenCalledWith(message);
      // The fetch handler answers the same.
      const fetchAnswer = await handler(new Request('http://127.0.0.1/webhooks', { method: 'POST', body: envelope() }));
      expect(fetchAnswer.status).toBe(500);
      expect(await fetchAnswer.json()).toEqual({ error: message });
      process.env.SVC_WEBHOOK_SECRET = SECRET;
      expect(await deliver(served.url)).toEqual({ status: 200, body: { received: true } });
      expect(on).toHaveBeenCalledTimes(1);
    } finally {
      log.mockRestore();
    }
  });

  test('a function (async here) is called at the first delivery, once; its result is kept', async () => {
    const secret = vi.fn(async () => SECRET);
    const handler = sdk.createWebhookHandler({ secret, on() {} });
    expect(secret).not.toHaveBeenCalled();
    served = await serve(sdk.toNodeListener(handler));
    const answers = await Promise.all([deliver(served.url), deliver(served.url), deliver(served.url)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(await deliver(served.url)).toEqual({ status: 200, body: { received: true } });
    expect(secret).toHaveBeenCalledTimes(1);
  });

  test('a function that returns nothing, or throws: 500 naming the problem (never its error message), tried again at the next delivery', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      let calls = 0;
      const secret = () => {
        calls += 1;
        if (calls === 1) return undefined;
        if (calls === 2) throw new Error('vault says: hunter2');
        return SECRET;
      };
      served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret, on() {} })));
      expect(await deliver(served.url)).toEqual({
        status: 500,
        body: { error: '[svc-sdk] createWebhookHandler: the secret function returned no secret: return the secret returned when the webhook was registered' },
      });
      const thrown = await deliver(served.url);
      expect(thrown).toEqual({ status: 500, body: { error: '[svc-sdk] createWebhookHandler: the secret function failed (Error)' } });
      expect((await deliver(served.url)).status).toBe(200);
    } finally {
      log.mockRestore();
    }
  });

  test.each([
    ['an empty string', ''],
    ['a number', 42],
    ['an empty array', []],
    ['an array with an empty secret', [SECRET, '']],
    ['an object', { secret: SECRET }],
  ])('a secret that is present but malformed (%s) still throws when the handler is made', (_case, secret) => {
    expect(() => sdk.createWebhookHandler({ secret: secret as never, on() {} })).toThrow(
      "[svc-sdk] createWebhookHandler: secret must be the webhook's signing secret, never empty (an array of them while rotating), a function returning it, or omitted to read SVC_WEBHOOK_SECRET",
    );
  });
});

describe('toNodeListener with a wrapped handler (no hidden property to lose)', () => {
  test('a handler wrapped for logging is served through fetch: 200 for a delivery, 401 for a forgery', async () => {
    const on = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on });
    expect(Object.getOwnPropertySymbols(handler)).toEqual([]);
    const seen: string[] = [];
    const wrapped: WebhookHandler = async (request) => {
      seen.push(request.method);
      return handler(request);
    };
    served = await serve(sdk.toNodeListener(wrapped));
    expect(await deliver(served.url)).toEqual({ status: 200, body: { received: true } });
    const forged = await fetch(served.url, { method: 'POST', body: envelope(), headers: { 'x-svc-signature': `sha256=${'0'.repeat(64)}` } });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ error: 'invalid_signature' });
    expect(seen).toEqual(['POST', 'POST']);
    expect(on).toHaveBeenCalledTimes(1);
  });

  test('a wrapper that throws is answered 500 handler_failed, one that answers text keeps its status and text', async () => {
    served = await serve(sdk.toNodeListener(async () => Promise.reject(new Error('wrapper failed'))));
    expect(await deliver(served.url)).toEqual({ status: 500, body: { error: 'handler_failed' } });
    await served.close();
    served = await serve(sdk.toNodeListener(async () => new Response('go away', { status: 403 })));
    expect(await deliver(served.url)).toEqual({ status: 403, body: { error: 'go away' } });
  });
});
