// Edges of the webhook verification API: the replay window's exact bounds, plain Uint8Array
// bodies, the body hints of verifyWebhook, bad secrets, the handler's option checks and answers,
// and the memory dedupe store's bounds.
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ENTRIES } from './entries.js';

const SECRET = 'whsec_verify_edges_secret';
const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const envelope = (timestamp = new Date(NOW).toISOString(), deliveryId: string = crypto.randomUUID()) =>
  JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: deliveryId, timestamp, data: {} });
const sign = (body: string | Uint8Array) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe.each(ENTRIES)('%s entry: verification edges', (_entry, sdk) => {
  test('the replay window includes its bounds: exactly `tolerance` old and exactly 5 minutes ahead are accepted', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const tolerance = 60_000;
    const atTolerance = envelope(new Date(NOW - tolerance).toISOString());
    const atSkew = envelope(new Date(NOW + 300_000).toISOString());
    await expect(sdk.verifyWebhook(atTolerance, sign(atTolerance), SECRET, { tolerance })).resolves.toMatchObject({ event: 'ping.test' });
    await expect(sdk.verifyWebhook(atSkew, sign(atSkew), SECRET, { tolerance })).resolves.toMatchObject({ event: 'ping.test' });
    const stale = envelope(new Date(NOW - tolerance - 1).toISOString());
    const ahead = envelope(new Date(NOW + 300_001).toISOString());
    await expect(sdk.verifyWebhook(stale, sign(stale), SECRET, { tolerance })).rejects.toMatchObject({ reason: 'stale_timestamp' });
    await expect(sdk.verifyWebhook(ahead, sign(ahead), SECRET, { tolerance })).rejects.toMatchObject({ reason: 'future_timestamp' });
  });

  test('a tolerance of 0 is a window of this very millisecond: accepted by verifyWebhook and the handler, a delivery 1 ms old refused', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const now = envelope();
    const old = envelope(new Date(NOW - 1).toISOString());
    await expect(sdk.verifyWebhook(now, sign(now), SECRET, { tolerance: 0 })).resolves.toMatchObject({ event: 'ping.test' });
    await expect(sdk.verifyWebhook(old, sign(old), SECRET, { tolerance: 0 })).rejects.toMatchObject({ reason: 'stale_timestamp' });
    const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, tolerance: 0 });
    const post = (body: string) => handler(new Request('http://localhost/webhooks', { method: 'POST', body, headers: { 'x-svc-signature': sign(body) } }));
    expect((await post(now)).status).toBe(200);
    expect((await post(old)).status).toBe(400);
  });

  test('a plain Uint8Array body (not a Buffer) is verified and parsed as its bytes', async () => {
    const text = envelope(new Date().toISOString());
    const bytes = new Uint8Array(new TextEncoder().encode(text));
    await expect(sdk.verifyWebhook(bytes, sign(text), SECRET)).resolves.toMatchObject({ event: 'ping.test' });
  });

  test('verifyWebhook says what a non-body is, and the fix', async () => {
    const message = async (body: unknown) => {
      const error = (await sdk.verifyWebhook(body as string, sign('x'), SECRET).catch((e: unknown) => e)) as InstanceType<typeof sdk.WebhookVerificationError>;
      expect(error).toBeInstanceOf(sdk.WebhookVerificationError);
      expect(error.reason).toBe('unreadable_body');
      return error.message;
    };
    const fix = 'pass the raw request body (a string, Uint8Array/Buffer or ArrayBuffer)';
    expect(await message(undefined)).toContain(`the type must match the delivery's Content-Type (application/json); ${fix}`);
    expect(await message({ event: 'ping.test' })).toContain(`the body is an already parsed object`);
    expect(await message({ event: 'ping.test' })).toContain(fix);
    for (const junk of [null, 42]) {
      const text = await message(junk);
      expect(text).not.toContain('already parsed');
      expect(text).toBe('[svc-sdk] webhook not verified: the body must be the raw request body: a string, Uint8Array/Buffer or ArrayBuffer');
    }
  });

  test('a secret that is not a string is no secret: verifyWebhook refuses with no_secret, signPayload with a clear TypeError', async () => {
    const body = envelope(new Date().toISOString());
    for (const secret of [undefined, 42, { key: SECRET }]) {
      await expect(sdk.verifyWebhook(body, sign(body), secret as unknown as string)).rejects.toMatchObject({ reason: 'no_secret' });
      await expect(sdk.signPayload(body, secret as unknown as string)).rejects.toThrow(
        new TypeError('[svc-sdk] signPayload: secret must be a non-empty string'),
      );
    }
  });

  test('the error classes name themselves, and a verification error defaults to invalid_signature', () => {
    expect(new sdk.WebhookPayloadError('[svc-sdk] x').name).toBe('WebhookPayloadError');
    const error = new sdk.WebhookVerificationError('[svc-sdk] x');
    expect(error.name).toBe('WebhookVerificationError');
    expect(error.reason).toBe('invalid_signature');
  });

  test('createWebhookHandler with dedupe: null says what dedupe may be', () => {
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on: () => {}, dedupe: null as never })).toThrow(
      new TypeError('[svc-sdk] createWebhookHandler: dedupe must be true, false or a DedupeStore'),
    );
  });

  test('a dedupe store that throws: 500 with error dedupe_store_failed, and on() is not called', async () => {
    const on = vi.fn();
    const down = new Error('redis down');
    const dedupe = { ttlMs: 86_400_000, claim: () => { throw down; }, complete: () => {}, release: () => {} };
    const onError = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on, dedupe, onError });
    const body = envelope(new Date().toISOString());
    const response = await handler(new Request('http://hooks.test/webhooks', { method: 'POST', body, headers: { 'x-svc-signature': sign(body) } }));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'dedupe_store_failed' });
    expect(on).not.toHaveBeenCalled();
    expect(onError.mock.calls.map(([error]) => error)).toEqual([down]);
  });

  test('the fetch handler reads a body whose declared Content-Length is exactly maxBodyBytes', async () => {
    const body = envelope(new Date().toISOString());
    const size = Buffer.byteLength(body);
    const handler = sdk.createWebhookHandler({ secret: SECRET, on: () => {}, maxBodyBytes: size });
    const request = new Request('http://hooks.test/webhooks', {
      method: 'POST',
      body,
      headers: { 'x-svc-signature': sign(body), 'content-length': String(size) },
    });
    expect(request.headers.get('content-length')).toBe(String(size));
    const response = await handler(request);
    expect(response.status).toBe(200);
  });

  test('createMemoryDedupeStore refuses a ttlMs or processingTtlMs of 0', () => {
    const message = '[svc-sdk] createMemoryDedupeStore: maxEntries, ttlMs and processingTtlMs must be positive numbers';
    expect(() => sdk.createMemoryDedupeStore({ ttlMs: 0 })).toThrow(new TypeError(message));
    expect(() => sdk.createMemoryDedupeStore({ processingTtlMs: 0 })).toThrow(new TypeError(message));
  });

  test('the memory store stays within maxEntries when a delivery completes after its claim expired: the oldest processed id goes, with a warning', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const store = sdk.createMemoryDedupeStore({ maxEntries: 2, processingTtlMs: 1000 });
    expect(await store.claim('a')).toBe('claimed'); // a slow delivery
    vi.setSystemTime(NOW + 1001); // its claim expires while on() still runs
    expect(await store.claim('b')).toBe('claimed');
    expect(await store.claim('c')).toBe('claimed');
    expect(warn).not.toHaveBeenCalled();
    await store.complete('a'); // 2 claims + 1 processed: one over maxEntries
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain('the memory store is full (2 ids)');
    // 'a' was the oldest processed id: forgotten, so it would be processed again.
    await store.release('b');
    expect(await store.claim('a')).toBe('claimed');
  });
});
