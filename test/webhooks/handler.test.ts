import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { DedupeStore, WebhookEvent } from '../../src/webhooks/index.js';
import { ENTRIES } from './entries.js';

const SECRET = 'whsec_handler_secret';
const URL_ = 'http://127.0.0.1/webhooks';

function envelope(deliveryId: string = crypto.randomUUID(), event = 'document.uploaded', timestamp = new Date().toISOString()) {
  return JSON.stringify({
    event,
    version: '1.0',
    delivery_id: deliveryId,
    timestamp,
    data: { room_id: 1, document_id: 2, filename: 'memo.txt', uploader_id: 3 },
  });
}

/** A delivery as the service sends it: POST, the raw JSON, X-Svc-Signature over those bytes. */
function delivery(body: string, secret = SECRET, init: RequestInit = {}): Request {
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return new Request(URL_, {
    method: 'POST',
    body,
    ...init,
    headers: { 'content-type': 'application/json', 'X-Svc-Signature': signature, ...init.headers },
  });
}

async function answer(response: Response) {
  return { status: response.status, body: (await response.json()) as unknown, type: response.headers.get('content-type') };
}

/** A store that records calls and answers claims from a script. */
function scriptedStore(claims: Array<'claimed' | 'processing' | 'done'>) {
  const calls: string[] = [];
  const store: DedupeStore = {
    claim: async (id) => (calls.push(`claim ${id}`), claims.shift() ?? 'claimed'),
    complete: async (id) => void calls.push(`complete ${id}`),
    release: async (id) => void calls.push(`release ${id}`),
  };
  return { store, calls };
}

afterEach(() => vi.useRealTimers());

describe.each(ENTRIES)('%s entry: createWebhookHandler({ secret, on, dedupe })', (_name, sdk) => {
  test('answers 200 { received: true } once on() resolved, with the typed event', async () => {
    const seen: WebhookEvent[] = [];
    let resolved = false;
    const handler = sdk.createWebhookHandler({
      secret: SECRET,
      on: async (event) => {
        await new Promise((r) => setTimeout(r, 5));
        seen.push(event);
        resolved = true;
      },
    });
    const body = envelope('d-200');
    const response = await handler(delivery(body));
    expect(resolved).toBe(true);
    expect(await answer(response)).toEqual({ status: 200, body: { received: true }, type: 'application/json' });
    expect(seen).toEqual([JSON.parse(body)]);
  });

  test.each(['GET', 'PUT', 'DELETE'])('answers 405 with Allow: POST to %s, without calling on()', async (method) => {
    const on = vi.fn();
    const response = await sdk.createWebhookHandler({ secret: SECRET, on })(new Request(URL_, { method }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toEqual({ error: expect.any(String) });
    expect(on).not.toHaveBeenCalled();
  });

  test.each([
    ['signed with another secret', () => delivery(envelope(), 'wrong-secret'), 'invalid_signature'],
    ['unsigned', () => new Request(URL_, { method: 'POST', body: envelope() }), 'missing_signature'],
    // The header's own problem is verifyWebhook's to say; the sender gets the reason only.
    ['with a malformed signature', () => delivery(envelope(), SECRET, { headers: { 'x-svc-signature': 'sha256=zz' } }), 'invalid_signature'],
    [
      'altered after signing',
      () => {
        const signed = delivery(envelope('d-x'));
        return new Request(URL_, { method: 'POST', body: envelope('d-y'), headers: signed.headers });
      },
      'invalid_signature',
    ],
  ])('answers 401 { error } to a delivery %s, without calling on()', async (_case, make, error) => {
    const on = vi.fn();
    const { status, body, type } = await answer(await sdk.createWebhookHandler({ secret: SECRET, on })(make()));
    expect({ status, type }).toEqual({ status: 401, type: 'application/json' });
    expect(body).toEqual({ error });
    expect(on).not.toHaveBeenCalled();
  });

  test('accepts either secret during a rotation', async () => {
    const on = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: ['new-secret', SECRET], on });
    expect((await handler(delivery(envelope()))).status).toBe(200);
    expect((await handler(delivery(envelope(), 'new-secret'))).status).toBe(200);
    expect(on).toHaveBeenCalledTimes(2);
  });

  test('answers 400 { error } naming the field for a signed body that is not an envelope', async () => {
    const on = vi.fn();
    const body = JSON.stringify({ event: 'ping.test', version: '1.0', timestamp: 'x', data: {} });
    const response = await sdk.createWebhookHandler({ secret: SECRET, on })(delivery(body));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: expect.stringContaining('"delivery_id"') });
    expect(on).not.toHaveBeenCalled();
  });

  test('onError hears what on() threw, with the event', async () => {
    const failure = new Error('index is down');
    const onError = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on: () => Promise.reject(failure), onError });
    expect((await handler(delivery(envelope('d-err')))).status).toBe(500);
    expect(onError).toHaveBeenCalledWith(failure, expect.objectContaining({ delivery_id: 'd-err' }));
  });

  test('without onError, what on() threw is logged with console.error, never silent', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const failure = new Error('index is down');
      const handler = sdk.createWebhookHandler({ secret: SECRET, on: () => Promise.reject(failure) });
      expect((await handler(delivery(envelope('d-log')))).status).toBe(500);
      expect(log).toHaveBeenCalledWith(expect.stringContaining('d-log'), failure);
    } finally {
      log.mockRestore();
    }
  });

  test('answers 500 { error } when on() throws, without leaking its message', async () => {
    const handler = sdk.createWebhookHandler({
      secret: SECRET,
      onError: () => {},
      on: () => {
        throw new Error('db password is hunter2');
      },
    });
    const response = await handler(delivery(envelope()));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: expect.any(String) });
    expect(text).not.toContain('hunter2');
  });

  test('default dedupe: a retried delivery_id gets 200 without calling on() again', async () => {
    const on = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on });
    const body = envelope('d-dup');
    expect((await handler(delivery(body))).status).toBe(200);
    expect(await answer(await handler(delivery(body)))).toMatchObject({ status: 200, body: { received: true } });
    expect((await handler(delivery(envelope('d-other')))).status).toBe(200);
    expect(on).toHaveBeenCalledTimes(2);
  });

  test('default dedupe: a delivery whose on() threw is processed on retry (nothing lost)', async () => {
    const transient = new Error('transient');
    const on = vi.fn().mockRejectedValueOnce(transient).mockResolvedValue(undefined);
    const onError = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on, onError });
    const body = envelope('d-retry');
    expect((await handler(delivery(body))).status).toBe(500);
    expect((await handler(delivery(body))).status).toBe(200);
    expect((await handler(delivery(body))).status).toBe(200);
    expect(on).toHaveBeenCalledTimes(2);
    expect(onError.mock.calls.map(([error]) => error)).toEqual([transient]);
  });

  test('default dedupe: a retry arriving while the first attempt runs gets 409 with Retry-After', async () => {
    let finish!: () => void;
    const on = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const handler = sdk.createWebhookHandler({ secret: SECRET, on });
    const body = envelope('d-busy');
    const first = handler(delivery(body));
    await vi.waitFor(() => expect(on).toHaveBeenCalledTimes(1));
    const second = await handler(delivery(body));
    expect(second.status).toBe(409);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await second.json()).toEqual({ error: expect.any(String) });
    finish();
    expect((await first).status).toBe(200);
    expect(on).toHaveBeenCalledTimes(1);
  });

  test('dedupe: false calls on() for every attempt', async () => {
    const on = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on, dedupe: false });
    const body = envelope('d-nodedupe');
    await handler(delivery(body));
    await handler(delivery(body));
    expect(on).toHaveBeenCalledTimes(2);
  });

  test('a DedupeStore: claim → on → complete; done → 200 only; processing → 409; on throws → release', async () => {
    const { store, calls } = scriptedStore(['claimed', 'done', 'processing', 'claimed']);
    const boom = new Error('boom');
    const on = vi.fn().mockResolvedValueOnce(undefined).mockRejectedValueOnce(boom);
    const onError = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store, onError });
    expect((await handler(delivery(envelope('a')))).status).toBe(200);
    expect((await handler(delivery(envelope('b')))).status).toBe(200);
    expect((await handler(delivery(envelope('c')))).status).toBe(409);
    expect((await handler(delivery(envelope('d')))).status).toBe(500);
    expect(calls).toEqual(['claim a', 'complete a', 'claim b', 'claim c', 'claim d', 'release d']);
    expect(on.mock.calls.map(([event]) => (event as WebhookEvent).delivery_id)).toEqual(['a', 'd']);
    expect(onError).toHaveBeenCalledWith(boom, expect.objectContaining({ delivery_id: 'd' }));
  });

  test('a store that fails to claim gets 500 (the service retries), without calling on()', async () => {
    const on = vi.fn();
    const down = new Error('redis down');
    const store: DedupeStore = { claim: () => Promise.reject(down), complete() {}, release() {} };
    const onError = vi.fn();
    const response = await sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store, onError })(delivery(envelope()));
    expect(response.status).toBe(500);
    expect(on).not.toHaveBeenCalled();
    expect(onError.mock.calls.map(([error]) => error)).toEqual([down]);
  });

  test('a store whose complete or release rejects changes no answer (200 processed, 500 failed)', async () => {
    const store: DedupeStore = {
      claim: async () => 'claimed' as const,
      complete: () => Promise.reject(new Error('redis down')),
      release: () => Promise.reject(new Error('redis down')),
    };
    const ok = sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe: store });
    expect((await ok(delivery(envelope()))).status).toBe(200);
    const failing = sdk.createWebhookHandler({ secret: SECRET, on: () => Promise.reject(new Error('x')), onError() {}, dedupe: store });
    expect((await failing(delivery(envelope()))).status).toBe(500);
  });

  test('waits for the store to record completion before answering (a fetch handler may be frozen right after)', async () => {
    const events: string[] = [];
    const store: DedupeStore = {
      claim: () => 'claimed',
      complete: () => new Promise<void>((resolve) => setTimeout(() => (events.push('recorded'), resolve()), 20)),
      release() {},
    };
    await sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe: store })(delivery(envelope()));
    events.push('answered');
    expect(events).toEqual(['recorded', 'answered']);
  });

  test('waitUntil: answers before the recording, and hands it over; it settles even when recording fails', async () => {
    const events: string[] = [];
    let finish = (): void => {};
    const store: DedupeStore = {
      claim: async () => 'claimed' as const,
      complete: () => new Promise<void>((_resolve, reject) => (finish = () => (events.push('recorded'), reject(new Error('redis down'))))),
      release() {},
    };
    const kept: Promise<unknown>[] = [];
    const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe: store, waitUntil: (promise) => void kept.push(promise) });
    const response = await handler(delivery(envelope()));
    events.push('answered');
    expect(response.status).toBe(200);
    expect(kept).toHaveLength(1);
    finish();
    await expect(kept[0]).resolves.toBeUndefined();
    expect(events).toEqual(['answered', 'recorded']);
  });

  test('a waitUntil that throws (e.g. ctx.waitUntil passed unbound) is not the delivery\'s failure: the answer waits for the recording and is 200', async () => {
    const events: string[] = [];
    const done = new Set<string>();
    const store: DedupeStore = {
      claim: async (id) => (done.has(id) ? 'done' : 'claimed'),
      complete: async (id) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        done.add(id);
        events.push('recorded');
      },
      release() {},
    };
    const on = vi.fn();
    const waitUntil = vi.fn(() => {
      throw new TypeError('Illegal invocation');
    });
    const handler = sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store, waitUntil });
    const body = envelope('d-unbound');
    const response = await handler(delivery(body));
    events.push('answered');
    expect(await answer(response)).toEqual({ status: 200, body: { received: true }, type: 'application/json' });
    expect(waitUntil).toHaveBeenCalledTimes(1);
    // It fell back to waiting: the recording came first, so the service's retry is acknowledged without on().
    expect(events).toEqual(['recorded', 'answered']);
    expect((await handler(delivery(body))).status).toBe(200);
    expect(on).toHaveBeenCalledTimes(1);
  });

  test('waitUntil is not called when the store records synchronously (the memory store)', async () => {
    const waitUntil = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, waitUntil });
    expect((await handler(delivery(envelope()))).status).toBe(200);
    expect(waitUntil).not.toHaveBeenCalled();
  });

  test('a store that fails to complete still answers 200: the event was processed', async () => {
    const on = vi.fn();
    const store: DedupeStore = { claim: () => 'claimed', complete: () => { throw new Error('redis down'); }, release() {} };
    expect((await sdk.createWebhookHandler({ secret: SECRET, on, dedupe: store })(delivery(envelope()))).status).toBe(200);
  });

  test.each([
    ['an empty secret', { secret: '', on() {} }, /secret must be the webhook's signing secret/],
    ['an empty secret array', { secret: [], on() {} }, /secret must be the webhook's signing secret/],
    ['no on', { secret: SECRET }, /on must be a function/],
    ['a bad dedupe', { secret: SECRET, on() {}, dedupe: {} }, /dedupe must be/],
    ['a waitUntil that is not a function', { secret: SECRET, on() {}, waitUntil: true }, /waitUntil must be a function/],
    ['a storeTimeoutMs of 0', { secret: SECRET, on() {}, storeTimeoutMs: 0 }, /: storeTimeoutMs must be a number of ms > 0$/],
    ['a storeTimeoutMs past setTimeout\'s limit', { secret: SECRET, on() {}, storeTimeoutMs: 2 ** 31 }, /: storeTimeoutMs must be a number of ms > 0$/],
    ['a storeTimeoutMs that is not a number', { secret: SECRET, on() {}, storeTimeoutMs: '2000' }, /: storeTimeoutMs must be a number of ms > 0$/],
  ])('throws a clear [svc-sdk] error at construction for %s', (_case, options, message) => {
    expect(() => sdk.createWebhookHandler(options as never)).toThrow(message);
    expect(() => sdk.createWebhookHandler(options as never)).toThrow(/^\[svc-sdk\] createWebhookHandler: /);
  });

  test('never puts the secret in a construction error', () => {
    expect(() => sdk.createWebhookHandler({ secret: 'sk_live_topsecret', on: 1 as never })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('topsecret') }),
    );
  });
});

/** A body stream of `chunks` chunks of `size` bytes that records how many it was asked for. */
function countingStream(chunks: number, size = 64 * 1024) {
  const pulled = { chunks: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.chunks === chunks) return controller.close();
      pulled.chunks++;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
  return { stream, pulled };
}

describe.each(ENTRIES)('%s entry: createWebhookHandler under attack', (_name, sdk) => {
  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;

  test('maxBodyBytes: a Content-Length over the limit is answered 413 at once, before any of the body is read', async () => {
    const on = vi.fn();
    const onVerificationError = vi.fn();
    const { stream, pulled } = countingStream(3200); // 200 MiB if it were read
    const request = new Request(URL_, {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { 'content-length': String(200 * 1024 * 1024), 'x-svc-signature': `sha256=${'0'.repeat(64)}` },
    } as RequestInit);
    const response = await sdk.createWebhookHandler({ secret: SECRET, on, onVerificationError })(request);
    expect(await answer(response)).toEqual({ status: 413, body: { error: 'body_too_large' }, type: 'application/json' });
    expect(pulled.chunks).toBeLessThanOrEqual(1); // at most what the stream pre-fetched on construction
    expect(onVerificationError).toHaveBeenCalledWith('body_too_large', request);
    expect(on).not.toHaveBeenCalled();
  });

  test('maxBodyBytes: a streamed body without Content-Length is cut off as soon as it passes the limit', async () => {
    const { stream, pulled } = countingStream(3200, 64 * 1024); // 200 MiB
    const request = new Request(URL_, { method: 'POST', body: stream, duplex: 'half', headers: { 'x-svc-signature': `sha256=${'0'.repeat(64)}` } } as RequestInit);
    const response = await sdk.createWebhookHandler({ secret: SECRET, on() {} })(request);
    expect(response.status).toBe(413);
    // 1 MiB is 16 chunks of 64 KiB: the 17th passes it; a chunk or two more may be in flight.
    expect(pulled.chunks).toBeGreaterThanOrEqual(17);
    expect(pulled.chunks).toBeLessThanOrEqual(19);
  });

  test('maxBodyBytes: honours the option, and a body of exactly the limit is read', async () => {
    const body = envelope('d-limit');
    const size = new TextEncoder().encode(body).byteLength;
    const on = vi.fn();
    expect((await sdk.createWebhookHandler({ secret: SECRET, on, maxBodyBytes: size })(delivery(body))).status).toBe(200);
    expect((await sdk.createWebhookHandler({ secret: SECRET, on, maxBodyBytes: size - 1 })(delivery(body))).status).toBe(413);
    expect(on).toHaveBeenCalledTimes(1);
  });

  test('answers 400 unreadable_body when the body stream fails mid-way, without calling on()', async () => {
    const on = vi.fn();
    const onVerificationError = vi.fn();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"event":'));
        controller.error(new Error('connection reset'));
      },
    });
    const request = new Request(URL_, { method: 'POST', body: stream, duplex: 'half', headers: { 'x-svc-signature': `sha256=${'0'.repeat(64)}` } } as RequestInit);
    const response = await sdk.createWebhookHandler({ secret: SECRET, on, onVerificationError })(request);
    expect(await answer(response)).toEqual({ status: 400, body: { error: 'unreadable_body' }, type: 'application/json' });
    expect(onVerificationError).toHaveBeenCalledWith('unreadable_body', request);
    expect(on).not.toHaveBeenCalled();
  });

  test.each([
    ['12 h and 1 minute old', -12 * HOUR - MINUTE, 'stale_timestamp'],
    ['stamped 2001', '2001-09-09T01:46:40.000Z', 'stale_timestamp'],
    ['6 minutes ahead', 6 * MINUTE, 'future_timestamp'],
    ['stamped 2999', '2999-01-01T00:00:00.000Z', 'future_timestamp'],
    ['stamped "not a date"', 'not a date', 'invalid_timestamp'],
    ['stamped now without a zone', new Date().toISOString().slice(0, -1), 'invalid_timestamp'],
  ])('answers 400 to a correctly signed delivery %s, without calling on()', async (_case, stamp, reason) => {
    const on = vi.fn();
    const onVerificationError = vi.fn();
    const timestamp = typeof stamp === 'number' ? new Date(Date.now() + stamp).toISOString() : stamp;
    const request = delivery(envelope(undefined, 'ping.test', timestamp));
    const response = await sdk.createWebhookHandler({ secret: SECRET, on, onVerificationError })(request);
    expect(await answer(response)).toEqual({ status: 400, body: { error: reason }, type: 'application/json' });
    expect(onVerificationError).toHaveBeenCalledWith(reason, request);
    expect(on).not.toHaveBeenCalled();
  });

  test('tolerance: a shorter window, and false to turn it off', async () => {
    const on = vi.fn();
    const hourOld = () => delivery(envelope(undefined, 'ping.test', new Date(Date.now() - HOUR - MINUTE).toISOString()));
    expect((await sdk.createWebhookHandler({ secret: SECRET, on, tolerance: HOUR })(hourOld())).status).toBe(400);
    expect((await sdk.createWebhookHandler({ secret: SECRET, on })(hourOld())).status).toBe(200);
    const ancient = delivery(envelope(undefined, 'ping.test', '2001-09-09T01:46:40.000Z'));
    expect((await sdk.createWebhookHandler({ secret: SECRET, on, tolerance: false })(ancient)).status).toBe(200);
    expect(on).toHaveBeenCalledTimes(2);
  });

  test('a captured delivery is never processed twice: remembered while in the window, refused once out of it', async () => {
    vi.useFakeTimers({ now: new Date('2026-06-01T12:00:00Z'), toFake: ['Date'] });
    const on = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on });
    // Stamped 5 minutes ahead (the most the window allows), then replayed at every moment after.
    const captured = envelope('d-captured', 'ping.test', new Date(Date.now() + 5 * MINUTE - 1).toISOString());
    expect((await handler(delivery(captured))).status).toBe(200);
    for (const later of [MINUTE, 6 * HOUR, 12 * HOUR, 12 * HOUR + 5 * MINUTE - 2]) {
      vi.setSystemTime(new Date('2026-06-01T12:00:00Z').getTime() + later);
      expect((await handler(delivery(captured))).status).toBe(200); // a known duplicate: acknowledged, not processed
    }
    vi.setSystemTime(new Date('2026-06-01T12:00:00Z').getTime() + 12 * HOUR + 5 * MINUTE);
    expect(await answer(await handler(delivery(captured)))).toMatchObject({ status: 400, body: { error: 'stale_timestamp' } });
    expect(on).toHaveBeenCalledTimes(1);
  });

  test('a captured delivery stays a duplicate after 10 000 newer deliveries, and its live claim is kept', async () => {
    let finish!: () => void;
    const on = vi.fn((event: WebhookEvent) => (event.delivery_id === 'd-slow' ? new Promise<void>((r) => (finish = r)) : undefined));
    const handler = sdk.createWebhookHandler({ secret: SECRET, on, dedupe: sdk.createMemoryDedupeStore({ maxEntries: 20_000 }) });
    const slow = handler(delivery(envelope('d-slow')));
    await vi.waitFor(() => expect(on).toHaveBeenCalledTimes(1));
    expect((await handler(delivery(envelope('d-first')))).status).toBe(200);
    for (let i = 0; i < 10_000; i++) await handler(delivery(envelope(`d-${i}`)));
    expect((await handler(delivery(envelope('d-slow')))).status).toBe(409); // still claimed
    expect((await handler(delivery(envelope('d-first')))).status).toBe(200);
    finish();
    expect((await slow).status).toBe(200);
    expect(on.mock.calls.filter(([event]) => ['d-slow', 'd-first'].includes(event.delivery_id))).toHaveLength(2);
  }, 60_000);

  test('onVerificationError hears signature failures with their reason; its own errors change nothing', async () => {
    const heard: string[] = [];
    const handler = sdk.createWebhookHandler({
      secret: SECRET,
      on() {},
      onVerificationError: (reason, request) => {
        heard.push(`${reason} ${request.method}`);
        throw new Error('the logger is down');
      },
    });
    expect((await handler(new Request(URL_, { method: 'POST', body: envelope() }))).status).toBe(401);
    expect((await handler(delivery(envelope(), 'wrong-secret'))).status).toBe(401);
    expect((await handler(delivery('{"not":"an envelope"}'))).status).toBe(400);
    expect((await handler(delivery(envelope()))).status).toBe(200);
    expect(heard).toEqual(['missing_signature POST', 'invalid_signature POST', 'invalid_payload POST']);
  });

  test('refuses a tolerance longer than the dedupe memory (a replay could outlive its id) at construction', () => {
    const dedupe = sdk.createMemoryDedupeStore({ ttlMs: HOUR });
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe })).toThrow(
      /^\[svc-sdk\] createWebhookHandler: tolerance \+ 5 minutes must not exceed the dedupe store's ttlMs/,
    );
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe, tolerance: 55 * MINUTE })).not.toThrow();
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe, tolerance: false })).not.toThrow();
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on() {}, tolerance: 24 * HOUR })).toThrow(/ttlMs/);
    // The 5 minutes of clock skew count: a tolerance equal to the store's memory is already too long.
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe, tolerance: HOUR })).toThrow(/ttlMs/);
    // No window, no bound: even a store that remembers ids for one second is accepted.
    const brief = sdk.createMemoryDedupeStore({ ttlMs: 1000 });
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe: brief, tolerance: false })).not.toThrow();
  });

  test.each([
    ['maxBodyBytes: 0', { maxBodyBytes: 0 }, /maxBodyBytes must be a number of bytes > 0/],
    ['maxBodyBytes: NaN', { maxBodyBytes: Number.NaN }, /maxBodyBytes must be/],
    ['tolerance: -1', { tolerance: -1 }, /tolerance must be a number of ms >= 0, or false/],
    ['tolerance: true', { tolerance: true }, /tolerance must be/],
  ])('throws a clear [svc-sdk] error at construction for %s', (_case, options, message) => {
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on() {}, ...(options as object) })).toThrow(message);
  });

  test('every optional option accepts undefined (exactOptionalPropertyTypes)', async () => {
    const handler = sdk.createWebhookHandler({
      secret: SECRET,
      on() {},
      dedupe: undefined,
      onError: undefined,
      maxBodyBytes: undefined,
      tolerance: undefined,
      onVerificationError: undefined,
    });
    expect((await handler(delivery(envelope()))).status).toBe(200);
  });
});
