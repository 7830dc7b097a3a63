// The emulator's control route, POST /api/v1/_emulator/events (what `svc-sdk trigger <kind>` calls).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { createEmulator } from '../../src/testing/index.js';

const emulator = createEmulator({ deliveryDelayMs: 0 });
afterEach(() => emulator.reset());

const fire = (body: unknown, key = 'vdr_control') =>
  emulator.fetch('http://emulator.test/api/v1/_emulator/events', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

describe('POST /api/v1/_emulator/events', () => {
  it('schedules the event for every subscriber, which then gets the spec\'s retry schedule', async () => {
    let calls = 0;
    const server = createServer((_, res) => res.writeHead(++calls === 1 ? 503 : 200).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const client = new Client({ apiKey: 'vdr_control', baseUrl: 'http://emulator.test', fetch: emulator.fetch, maxRetries: 0 });
      const hook = await client.webhooks.create({ url, name: 'app', event_types: ['credit.low'] });
      await client.webhooks.create({ url, name: 'not subscribed', event_types: ['job.failed'] });
      const response = await fire({ event: 'credit.low', data: { balance: 1 } });
      expect(response.status).toBe(202);
      const answer = (await response.json()) as { data: { deliveries: Array<{ webhook_id: number; delivery_id: string }> } };
      expect(answer).toEqual({ success: true, data: { event: 'credit.low', deliveries: [{ webhook_id: hook.id, delivery_id: expect.any(String) }] } });
      const deliveryId = answer.data.deliveries[0]!.delivery_id;
      await emulator.waitForDelivery((attempt) => attempt.deliveryId === deliveryId);
      expect(await emulator.advance(60_000)).toMatchObject([{ deliveryId, attempt: 2, status: 200, ok: true }]);
      expect(emulator.deliveries.map(({ attempt, status }) => [attempt, status])).toEqual([
        [1, 503],
        [2, 200],
      ]);
    } finally {
      server.close();
    }
  });

  it('is held to the production rules: only at /api/v1/ from the root (a prefixed path is 404), and answers with an x-request-id', async () => {
    const client = new Client({ apiKey: 'vdr_control', baseUrl: 'http://emulator.test', fetch: emulator.fetch, maxRetries: 0 });
    await client.webhooks.create({ url: 'http://127.0.0.1:9/x', name: 'a', event_types: null });
    const init = { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer vdr_control' }, body: '{"event":"credit.low"}' };
    const prefixed = await emulator.fetch('http://emulator.test/foo/api/v1/_emulator/events', init);
    expect(prefixed.status).toBe(404);
    expect(emulator.deliveries).toEqual([]);
    const fired = await fire({ event: 'credit.low' });
    expect(fired.status).toBe(202);
    expect(fired.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    // Through msw alone (no emulator.fetch around it), the route gives its own request id too.
    const direct = await getResponse([...emulator.handlers], new Request('http://emulator.test/api/v1/_emulator/events', init));
    expect(direct?.status).toBe(202);
    expect(direct?.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('sends the kind\'s sample data when data is left out', async () => {
    const client = new Client({ apiKey: 'vdr_control', baseUrl: 'http://emulator.test', fetch: emulator.fetch, maxRetries: 0 });
    await client.webhooks.create({ url: 'http://127.0.0.1:9/x', name: 'a', event_types: null });
    const response = await fire({ event: 'credit.low' });
    expect(response.status).toBe(202);
  });

  it.each([
    [{ event: 'credit.lo' }, 'event'],
    [{}, 'event'],
    [{ event: 'credit.low', data: [1] }, 'data'],
  ])('%j is answered 422 naming the field', async (body, field) => {
    const response = await fire(body);
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ field });
  });

  it('needs the emulator\'s API key', async () => {
    const strict = createEmulator({ apiKey: 'vdr_only' });
    const response = await strict.fetch('http://emulator.test/api/v1/_emulator/events', { method: 'POST', body: '{"event":"credit.low"}' });
    expect(response.status).toBe(401);
  });
});
