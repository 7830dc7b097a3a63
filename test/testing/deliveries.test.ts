import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '../../src/index.node.js';
import { createEmulator } from '../../src/testing/index.js';
import { WEBHOOK_EVENT_KINDS } from '../../src/webhooks/event-kinds.js';
import { expectedSignature, KEY, OTHER_KEY, ORIGIN } from './support.js';

const RECEIVER = 'https://receiver.test/hook';
const OTHER_RECEIVER = 'https://other.test/hook';

interface Received {
  url: string;
  body: string;
  signature: string | null;
  contentType: string | null;
}

// The emulator's handlers answer the client; msw also plays the receivers (status chosen per test).
const emulator = createEmulator({ deliveryDelayMs: 2000 });
const received: Received[] = [];
let receiverStatus = 200;
const server = setupServer(
  ...emulator.handlers,
  http.post('https://:host/hook', async ({ request }) => {
    received.push({
      url: request.url,
      body: await request.text(),
      signature: request.headers.get('x-svc-signature'),
      contentType: request.headers.get('content-type'),
    });
    return HttpResponse.json({ received: true }, { status: receiverStatus });
  }),
);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  emulator.reset(); // first: its timers may be fake ones
  vi.useRealTimers();
  received.length = 0;
  receiverStatus = 200;
});
afterAll(() => server.close());

/**
 * Lets in-flight attempts finish without moving the fake clock (vi.waitFor would advance it by
 * its polling interval, shifting the schedule under test): setImmediate is left real.
 */
async function until(condition: () => boolean): Promise<void> {
  const deadline = performance.now() + 5000; // performance.now is not faked
  while (!condition() && performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}

const client = new Client({ apiKey: KEY, baseUrl: ORIGIN, maxRetries: 0 });
const otherClient = new Client({ apiKey: OTHER_KEY, baseUrl: ORIGIN, maxRetries: 0 });

async function roomWithWebhook(eventTypes: string[] | null = ['document.uploaded']) {
  const room = await client.rooms.create({ name: 'VDR', room_type: 'company_investment' });
  const webhook = await client.webhooks.create({ url: RECEIVER, name: 'main', event_types: eventTypes });
  return { room, webhook };
}

describe('deliveries', () => {
  it('an upload sends document.uploaded, signed, in the spec envelope, after deliveryDelayMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { room, webhook } = await roomWithWebhook();
    const document = await client.documents.upload(room.id, new Blob(['hello']), { filename: 'memo.txt' });
    await vi.advanceTimersByTimeAsync(1999);
    expect(received).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => emulator.deliveries.length === 1);

    const [delivery] = received;
    expect(delivery!.contentType).toBe('application/json');
    expect(delivery!.signature).toBe(expectedSignature(delivery!.body, webhook.secret));
    const payload = JSON.parse(delivery!.body);
    expect(payload).toEqual({
      event: 'document.uploaded',
      version: '1.0',
      delivery_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { room_id: room.id, document_id: document.id, filename: 'memo.txt', uploader_id: 1 },
    });
    expect(emulator.deliveries[0]).toMatchObject({ webhookId: webhook.id, deliveryId: payload.delivery_id, event: 'document.uploaded', attempt: 1, status: 200, ok: true });
  });

  it('walks the whole retry schedule on failure: 6 attempts, same body and delivery_id, valid signatures, then failure_count 1', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    receiverStatus = 503;
    const { room, webhook } = await roomWithWebhook();
    await client.documents.upload(room.id, new Blob(['hello']), { filename: 'memo.txt' });

    const schedule = [2000, 60_000, 300_000, 1_800_000, 7_200_000, 28_800_000];
    for (const [index, delay] of schedule.entries()) {
      await vi.advanceTimersByTimeAsync(delay - 1);
      expect(received, `attempt ${index + 1} not before its delay`).toHaveLength(index);
      await vi.advanceTimersByTimeAsync(1);
      await until(() => emulator.deliveries.length === index + 1);
    }
    await vi.advanceTimersByTimeAsync(24 * 3600_000);
    expect(received).toHaveLength(6);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    for (const r of received) expect(r.signature).toBe(expectedSignature(r.body, webhook.secret));
    expect(emulator.deliveries.map((d) => [d.attempt, d.status, d.ok])).toEqual(schedule.map((_, i) => [i + 1, 503, false]));
    expect(new Set(emulator.deliveries.map((d) => d.deliveryId)).size).toBe(1);
    expect((await client.webhooks.retrieve(webhook.id)).failure_count).toBe(1);
  });

  it('a retry after a success-less attempt stops at the first 2xx and leaves failure_count at 0', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    receiverStatus = 500;
    const { room, webhook } = await roomWithWebhook();
    await client.documents.upload(room.id, new Blob(['hello']), { filename: 'memo.txt' });
    await vi.advanceTimersByTimeAsync(2000);
    await until(() => emulator.deliveries.length === 1);
    receiverStatus = 200;
    await vi.advanceTimersByTimeAsync(60_000);
    await until(() => emulator.deliveries.length === 2);
    await vi.advanceTimersByTimeAsync(24 * 3600_000);
    expect(emulator.deliveries.map((d) => d.status)).toEqual([500, 200]);
    expect((await client.webhooks.retrieve(webhook.id)).failure_count).toBe(0);
  });

  it('a retry is signed with the secret current at send time (after rotation)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    receiverStatus = 500;
    const { room, webhook } = await roomWithWebhook();
    await client.documents.upload(room.id, new Blob(['hello']), { filename: 'memo.txt' });
    await vi.advanceTimersByTimeAsync(2000);
    await until(() => emulator.deliveries.length === 1);
    const { secret } = await client.webhooks.rotateSecret(webhook.id);
    await vi.advanceTimersByTimeAsync(60_000);
    await until(() => emulator.deliveries.length === 2);
    expect(received[0]!.signature).toBe(expectedSignature(received[0]!.body, webhook.secret));
    expect(received[1]!.signature).toBe(expectedSignature(received[1]!.body, secret));
  });

  it('delivers only to endpoints of the uploading key that subscribe to the event (or to all events)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const room = await client.rooms.create({ name: 'VDR', room_type: 'company_investment' });
    await client.webhooks.create({ url: `${RECEIVER}?all`, name: 'all', event_types: null });
    await client.webhooks.create({ url: `${RECEIVER}?credit`, name: 'credit', event_types: ['credit.low'] });
    await otherClient.webhooks.create({ url: OTHER_RECEIVER, name: 'other key', event_types: null });
    await client.documents.upload(room.id, new Blob(['x']), { filename: 'a.txt' });
    await vi.advanceTimersByTimeAsync(2000);
    await until(() => emulator.deliveries.length === 1);
    await vi.advanceTimersByTimeAsync(3600_000);
    expect(received.map((r) => r.url)).toEqual([`${RECEIVER}?all`]);
  });

  it('trigger(kind) sends sample data to every subscribed endpoint across keys; trigger(kind, data) sends the data', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await client.webhooks.create({ url: `${RECEIVER}?credit`, name: 'credit', event_types: ['credit.low'] });
    await client.webhooks.create({ url: `${RECEIVER}?docs`, name: 'docs', event_types: ['document.uploaded'] });
    await otherClient.webhooks.create({ url: OTHER_RECEIVER, name: 'other key', event_types: null });
    const scheduled = await emulator.trigger('credit.low', { balance: 42, threshold: 100 });
    expect(scheduled).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2000);
    await until(() => received.length === 2);
    expect(received.map((r) => r.url).sort()).toEqual([OTHER_RECEIVER, `${RECEIVER}?credit`]);
    expect(JSON.parse(received[0]!.body)).toMatchObject({ event: 'credit.low', data: { balance: 42, threshold: 100 } });

    received.length = 0;
    for (const kind of WEBHOOK_EVENT_KINDS) await emulator.trigger(kind);
    await vi.advanceTimersByTimeAsync(2000);
    await until(() => received.length === WEBHOOK_EVENT_KINDS.length + 2);
    const samples = received.filter((r) => r.url === OTHER_RECEIVER).map((r) => JSON.parse(r.body));
    expect(samples.map((p) => p.event).sort()).toEqual([...WEBHOOK_EVENT_KINDS].sort());
    expect(samples.find((p) => p.event === 'document.uploaded').data).toEqual({ room_id: expect.any(Number), document_id: expect.any(Number), filename: expect.any(String), uploader_id: expect.any(Number) });
  });

  it('ping sends ping.test to that endpoint, whatever it subscribes to', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { webhook } = await roomWithWebhook(['credit.low']);
    await client.webhooks.ping(webhook.id);
    await vi.advanceTimersByTimeAsync(2000);
    const attempt = await emulator.waitForDelivery((d) => d.event === 'ping.test');
    expect(attempt).toMatchObject({ webhookId: webhook.id, status: 200 });
    expect(JSON.parse(received[0]!.body).event).toBe('ping.test');
  });

  it('counts a network error as a failed attempt and records it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    server.use(http.post(RECEIVER, () => HttpResponse.error()));
    await roomWithWebhook(null);
    await emulator.trigger('module.enabled');
    await vi.advanceTimersByTimeAsync(2000);
    const attempt = await emulator.waitForDelivery();
    expect(attempt).toMatchObject({ attempt: 1, ok: false, error: expect.any(String) });
    expect(attempt.status).toBeUndefined();
    server.resetHandlers();
  });

  it('deleting an endpoint stops its pending retries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    receiverStatus = 500;
    const { webhook } = await roomWithWebhook(null);
    await emulator.trigger('credit.exhausted');
    await vi.advanceTimersByTimeAsync(2000);
    await until(() => emulator.deliveries.length === 1);
    await client.webhooks.delete(webhook.id);
    await vi.advanceTimersByTimeAsync(24 * 3600_000);
    expect(received).toHaveLength(1);
  });

  it('reset() cancels pending deliveries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await roomWithWebhook(null);
    await emulator.trigger('module.enabled');
    emulator.reset();
    await vi.advanceTimersByTimeAsync(3600_000);
    expect(received).toHaveLength(0);
    expect(emulator.deliveries).toHaveLength(0);
  });
});
