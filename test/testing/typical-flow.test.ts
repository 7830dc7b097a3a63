import { createServer, type Server } from 'node:http';
import { setupServer } from 'msw/node';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, NotFoundError, UnprocessableEntityError, AuthenticationError } from '../../src/index.node.js';
import { createEmulator } from '../../src/testing/index.js';
import { verifyWebhook } from '../../src/webhooks/index.node.js';
import { KEY } from './support.js';

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A local receiver that verifies each delivery with the SDK and keeps the events. */
async function startReceiver(secretOf: () => string) {
  const events: Array<{ event: string; delivery_id: string; data: Record<string, unknown> }> = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const event = await verifyWebhook(Buffer.concat(chunks), req.headers['x-svc-signature'] as string, secretOf());
      events.push(event as (typeof events)[number]);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    } catch {
      res.writeHead(401).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, events };
}

describe('the typical flow', () => {
  it('runs through the real HTTP server (listen(0)) with the real Client, and the delivery verifies', async () => {
    const emulator = createEmulator({ deliveryDelayMs: 10 });
    const { url } = await emulator.listen(0);
    closers.push(() => emulator.close());
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = new Client({ apiKey: KEY, baseUrl: url, maxRetries: 0 });

    const draft = { name: 'Acme', stage: 'sourcing', asset_class: 'equity' };
    expect((await client.deals.create(draft, { ephemeral: true })).id).toBeNull();
    const deal = await client.deals.create(draft);
    const room = await client.rooms.create({ name: 'Acme VDR', room_type: 'company_investment' });
    const tx = await client.transactions.create({ name: 'Close', deal_id: deal.id });
    expect(await client.transactions.update(tx.id, { linked_room_id: room.id })).toMatchObject({ linked_room_id: room.id });
    expect(await client.deals.linkedRoomIds(deal.id)).toEqual([room.id]);

    let secret = '';
    const receiver = await startReceiver(() => secret);
    const webhook = await client.webhooks.create({ url: receiver.url, name: 'local', event_types: ['document.uploaded'] });
    secret = webhook.secret;
    const memo = 'Acme grew revenue threefold. The main risk is customer concentration.';
    const document = await client.documents.upload(room.id, new TextEncoder().encode(memo), { filename: 'memo.txt' });
    expect(document).toMatchObject({ original_filename: 'memo.txt' });

    const attempt = await emulator.waitForDelivery((d) => d.event === 'document.uploaded', { timeout: 5000 });
    expect(attempt).toMatchObject({ webhookId: webhook.id, status: 200, ok: true });
    expect(receiver.events).toEqual([
      expect.objectContaining({ event: 'document.uploaded', delivery_id: attempt.deliveryId, data: { room_id: room.id, document_id: document.id, filename: 'memo.txt', uploader_id: 1 } }),
    ]);

    const result = await client.search.query(room.id, { query: 'main risk' });
    expect(result.citations?.[0]).toMatchObject({ document_id: document.id, filename: 'memo.txt', passage: expect.stringContaining('customer concentration') });
    expect(await client.webhooks.list()).toEqual([{ id: webhook.id, url: receiver.url, name: 'local', event_types: ['document.uploaded'], failure_count: 0 }]);
  });

  it('maps the emulator\'s errors to the SDK\'s error classes over HTTP', async () => {
    const emulator = createEmulator();
    const { url } = await emulator.listen(0);
    closers.push(() => emulator.close());
    const client = new Client({ apiKey: KEY, baseUrl: url, maxRetries: 0 });
    await expect(client.transactions.create({ name: 'T', deal_id: 404 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.request({ method: 'POST', path: '/rooms', json: { name: 'R' } })).rejects.toMatchObject({
      constructor: UnprocessableEntityError,
      status: 422,
      body: { error: expect.stringMatching(/^room_type is required/), field: 'room_type' },
    });
    const unknownKey = new Client({ apiKey: 'vdr_nope', baseUrl: url, maxRetries: 0 });
    const strict = createEmulator({ apiKey: KEY });
    const strictServer = await strict.listen(0);
    closers.push(() => strict.close());
    await expect(new Client({ apiKey: 'vdr_nope', baseUrl: strictServer.url }).webhooks.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(await unknownKey.webhooks.list()).toEqual([]); // open emulator: any vdr_ key, its own empty scope
  });

  it('emulator.handlers work in msw setupServer on any origin, with the real Client', async () => {
    const emulator = createEmulator();
    const server = setupServer(...emulator.handlers);
    server.listen({ onUnhandledFrame: 'error' });
    try {
      for (const baseUrl of ['https://svc.test', 'http://localhost:9999']) {
        const client = new Client({ apiKey: KEY, baseUrl, maxRetries: 0 });
        const room = await client.rooms.create({ name: 'R', room_type: 'company_investment' });
        expect(room).toMatchObject({ name: 'R', room_type: 'company_investment' });
      }
    } finally {
      server.close(); // msw patches the global fetch: later tests use the real network
    }
  });

  it('settled() resolves once nothing is in flight or due within the horizon', async () => {
    const emulator = createEmulator({ deliveryDelayMs: 5, retryDelaysMs: [3600_000] });
    closers.push(() => emulator.close());
    const receiver = await startReceiver(() => 'wrong');
    await emulator.fetch(
      new Request('https://svc.test/api/v1/webhooks/', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, name: 'r', event_types: null }),
      }),
    );
    await emulator.settled(); // nothing scheduled yet
    await emulator.trigger('credit.low');
    await emulator.settled(); // the first attempt (401 from the receiver) is done; the retry is an hour away
    expect(emulator.deliveries).toMatchObject([{ attempt: 1, status: 401, ok: false }]);
    await expect(emulator.waitForDelivery((d) => d.attempt === 2, { timeout: 20 })).rejects.toThrow(/^\[svc-sdk\] no matching delivery within 20 ms/);
  });
});
