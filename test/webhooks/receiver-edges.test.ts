// The receiver's edges through the fetch handler of both entries: the lease without a store, store
// failures that are not timeouts, and the secret's resolution (empty values, concurrent first
// deliveries, a function that fails and then succeeds).
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { DedupeStore } from '../../src/webhooks/index.js';
import { ENTRIES } from './entries.js';

const SECRET = 'whsec_receiver_edges';
const envelope = (id: string = crypto.randomUUID()) =>
  JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: id, timestamp: new Date().toISOString(), data: {} });
const delivery = (body = envelope()) =>
  new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: { 'x-svc-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` } });
const answer = async (response: Response) => ({ status: response.status, body: (await response.json()) as unknown });

const saved = process.env.SVC_WEBHOOK_SECRET;
afterEach(() => {
  if (saved === undefined) delete process.env.SVC_WEBHOOK_SECRET;
  else process.env.SVC_WEBHOOK_SECRET = saved;
  vi.restoreAllMocks();
});

describe.each(ENTRIES)('%s entry: the receiver at its edges', (_name, sdk) => {
  test('without a dedupe store, an async on() answers 200 (no lease to keep)', async () => {
    const on = vi.fn(async () => {});
    expect(await answer(await sdk.createWebhookHandler({ secret: SECRET, on, dedupe: false })(delivery()))).toEqual({ status: 200, body: { received: true } });
    expect(on).toHaveBeenCalledTimes(1);
  });

  test('a store whose claim fails (not a timeout) is answered 500 and reported, and nothing is released: the claim may be another worker\'s', async () => {
    const calls: string[] = [];
    const failure = new Error('redis: READONLY');
    const store: DedupeStore = {
      claim: async () => Promise.reject(failure),
      complete: async (id) => void calls.push(`complete ${id}`),
      release: async (id) => void calls.push(`release ${id}`),
    };
    const onError = vi.fn();
    const response = await sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe: store, onError })(delivery(envelope('d-store')));
    expect(await answer(response)).toEqual({ status: 500, body: { error: 'dedupe_store_failed' } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toEqual([]);
    expect(onError).toHaveBeenCalledWith(failure, expect.objectContaining({ delivery_id: 'd-store' }));
  });

  test('a claim that fails only after storeTimeoutMs is reported once, as the timeout, and released once: its late failure is not reported again', async () => {
    let fail!: (error: Error) => void;
    const released: string[] = [];
    const store: DedupeStore = {
      claim: () => new Promise((_, reject) => (fail = reject)),
      complete: async () => {},
      release: async (id) => void released.push(id),
    };
    const onError = vi.fn();
    const response = await sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe: store, onError, storeTimeoutMs: 50 })(delivery(envelope('d-late')));
    expect(await answer(response)).toEqual({ status: 500, body: { error: 'dedupe_store_failed' } });
    await vi.waitFor(() => expect(released).toEqual(['d-late']));
    fail(new Error('redis: connection lost'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ name: 'StoreTimeoutError' }), expect.objectContaining({ delivery_id: 'd-late' }));
    expect(released).toEqual(['d-late']);
  });

  test('a delivery another worker is processing is 409 delivery_in_progress with retry-after: 60 (come back in a minute)', async () => {
    const store: DedupeStore = { claim: async () => 'processing' as const, complete: async () => {}, release: async () => {} };
    const on = vi.fn();
    const response = await sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store })(delivery());
    expect(response.headers.get('retry-after')).toBe('60');
    expect(await answer(response)).toEqual({ status: 409, body: { error: 'delivery_in_progress' } });
    expect(on).not.toHaveBeenCalled();
  });

  test('storeTimeoutMs up to setTimeout\'s limit is accepted', () => {
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on() {}, storeTimeoutMs: 2_147_483_647 })).not.toThrow();
  });

  test('SVC_WEBHOOK_SECRET set to an empty string is no secret: 500 naming it', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    process.env.SVC_WEBHOOK_SECRET = '';
    const { status, body } = await answer(await sdk.createWebhookHandler({ on() {} })(delivery()));
    expect(status).toBe(500);
    expect((body as { error: string }).error).toMatch(/^\[svc-sdk\] createWebhookHandler: no signing secret: set SVC_WEBHOOK_SECRET/);
  });

  test('a secret function returning an empty string returned no secret (500), and is asked again', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const secret = vi.fn<() => string>().mockReturnValueOnce('').mockReturnValue(SECRET);
    const handler = sdk.createWebhookHandler({ secret, on() {} });
    expect(await answer(await handler(delivery()))).toEqual({
      status: 500,
      body: { error: '[svc-sdk] createWebhookHandler: the secret function returned no secret: return the secret returned when the webhook was registered' },
    });
    expect((await handler(delivery())).status).toBe(200);
    expect(secret).toHaveBeenCalledTimes(2);
  });

  test('concurrent first deliveries share one call of an async secret function', async () => {
    let resolve = (_secret: string): void => {};
    const secret = vi.fn(() => new Promise<string>((done) => (resolve = done)));
    const handler = sdk.createWebhookHandler({ secret, on() {} });
    const answers = [handler(delivery()), handler(delivery()), handler(delivery())];
    await new Promise((done) => setTimeout(done, 5));
    resolve(SECRET);
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(secret).toHaveBeenCalledTimes(1);
  });

  test('an async secret function that rejects: 500 naming only its error\'s name; the next delivery asks again', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const secret = vi.fn<() => Promise<string>>().mockRejectedValueOnce(new TypeError('vault: token hunter2 expired')).mockResolvedValue(SECRET);
    const handler = sdk.createWebhookHandler({ secret, on() {} });
    expect(await answer(await handler(delivery()))).toEqual({ status: 500, body: { error: '[svc-sdk] createWebhookHandler: the secret function failed (TypeError)' } });
    expect((await handler(delivery())).status).toBe(200);
  });

  test('the lease ends with on(): renewals run while it runs and stop once it settled', async () => {
    const store = sdk.createMemoryDedupeStore({ processingTtlMs: 30 }); // renewed every 10 ms
    const renew = vi.spyOn(store, 'renew');
    const on = () => new Promise<void>((resolve) => setTimeout(resolve, 100));
    expect((await sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store })(delivery())).status).toBe(200);
    const renewals = renew.mock.calls.length;
    expect(renewals).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(renew.mock.calls.length).toBe(renewals);
  });

  test.each([
    ['no process (Workers, browsers)', undefined],
    ['a process without env', {}],
  ])('an omitted secret where there is %s is missing: 500 naming the fix, never a TypeError', async (_where, standIn) => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const handler = sdk.createWebhookHandler({ on() {} });
    const request = delivery();
    // Only while the handler looks for SVC_WEBHOOK_SECRET: vitest itself runs on Node's process.
    vi.stubGlobal('process', standIn);
    let response: Response;
    try {
      response = await handler(request);
    } finally {
      vi.unstubAllGlobals();
    }
    const { status, body } = await answer(response);
    expect(status).toBe(500);
    expect((body as { error: string }).error).toMatch(/^\[svc-sdk\] createWebhookHandler: no signing secret: set SVC_WEBHOOK_SECRET/);
  });

  test('a secret function that throws synchronously: 500 naming only its error\'s name', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const handler = sdk.createWebhookHandler({
      secret: () => {
        throw new RangeError('hunter2');
      },
      on() {},
    });
    expect(await answer(await handler(delivery()))).toEqual({ status: 500, body: { error: '[svc-sdk] createWebhookHandler: the secret function failed (RangeError)' } });
  });
});
