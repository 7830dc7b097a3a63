import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test, vi } from 'vitest';
import type { DedupeStore, DeliveryOutcome, WebhookHooks } from '../../src/webhooks/index.js';
import { ENTRIES } from './entries.js';

const SECRET = 'whsec_receiver_hooks_secret';

function envelope(deliveryId: string = crypto.randomUUID(), timestamp = new Date().toISOString()) {
  return JSON.stringify({ event: 'credit.low', version: '1.0', delivery_id: deliveryId, timestamp, data: { balance: 3, threshold: 10 } });
}

function delivery(body: string, init: { secret?: string; method?: string; signature?: string | null } = {}): Request {
  const signature = init.signature === undefined ? `sha256=${createHmac('sha256', init.secret ?? SECRET).update(body).digest('hex')}` : init.signature;
  return new Request('http://127.0.0.1/webhooks', {
    method: init.method ?? 'POST',
    body: init.method === 'GET' ? null : body,
    headers: signature === null ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', 'x-svc-signature': signature },
  });
}

/** Records every hook call, in order, as `hook:detail`; keeps the outcomes. */
function recorder() {
  const events: string[] = [];
  const outcomes: DeliveryOutcome[] = [];
  const hooks: WebhookHooks = {
    onReceive: (info) => void events.push(`receive:${info.event === undefined}`),
    onVerified: ({ event }) => void events.push(`verified:${event.delivery_id}`),
    onOutcome: (outcome) => {
      outcomes.push(outcome);
      events.push(`outcome:${outcome.outcome}:${outcome.reason ?? outcome.dedupe ?? outcome.failure ?? ''}:${outcome.status}`);
    },
  };
  return { events, outcomes, hooks };
}

describe.each(ENTRIES)('%s entry: createWebhookHandler({ hooks })', (_name, sdk) => {
  test('each delivery is heard from arrival to outcome: processed, duplicate, refused with its reason, failed', async () => {
    const { events, outcomes, hooks } = recorder();
    let failNext = false;
    const handler = sdk.createWebhookHandler({
      secret: SECRET,
      on: () => {
        if (failNext) throw new Error('boom');
      },
      onError: () => {},
      hooks,
    });
    const body = envelope('d-1');
    expect((await handler(delivery(body))).status).toBe(200);
    expect((await handler(delivery(body))).status).toBe(200);
    expect((await handler(delivery(body, { secret: 'whsec_wrong' }))).status).toBe(401);
    expect((await handler(delivery(body, { signature: null }))).status).toBe(401);
    expect((await handler(delivery(envelope('d-old', '2020-01-01T00:00:00Z')))).status).toBe(400);
    expect((await handler(delivery('{"not":"a delivery"}'))).status).toBe(400);
    expect((await handler(delivery(body, { method: 'GET' }))).status).toBe(405);
    failNext = true;
    expect((await handler(delivery(envelope('d-2')))).status).toBe(500);
    expect(events).toEqual([
      'receive:true', 'verified:d-1', 'outcome:processed::200',
      'receive:true', 'verified:d-1', 'outcome:duplicate:done:200',
      'receive:true', 'outcome:refused:invalid_signature:401',
      'receive:true', 'outcome:refused:missing_signature:401',
      'receive:true', 'verified:d-old', 'outcome:refused:stale_timestamp:400',
      'receive:true', 'outcome:refused:invalid_payload:400',
      'receive:true', 'outcome:refused:method_not_allowed:405',
      'receive:true', 'verified:d-2', 'outcome:failed:handler_failed:500',
    ]);
    // Each outcome carries the one detail it has: a processed delivery none (not even an undefined failure).
    expect(outcomes.map((outcome) => Object.keys(outcome).sort().join())).toEqual([
      'delivery,durationMs,outcome,status',
      'dedupe,delivery,durationMs,outcome,status',
      ...Array(5).fill('delivery,durationMs,outcome,reason,status'),
      'delivery,durationMs,failure,outcome,status',
    ]);
    // The record is one object per delivery, the event known once verified.
    expect(outcomes[0]!.delivery.event?.delivery_id).toBe('d-1');
    expect(outcomes[2]!.delivery.event).toBeUndefined();
    expect(outcomes.every((outcome) => outcome.durationMs >= 0 && outcome.durationMs < 60_000)).toBe(true);
  });

  test('a delivery in progress elsewhere is a duplicate (409); a dedupe store that fails is a failure', async () => {
    const { events, hooks } = recorder();
    const claims: Array<'processing' | 'fail'> = ['processing', 'fail'];
    const store: DedupeStore = {
      claim: async () => {
        const next = claims.shift();
        if (next === 'fail') throw new Error('redis down');
        return next ?? 'claimed';
      },
      complete: async () => {},
      release: async () => {},
    };
    const onError = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on: () => {}, dedupe: store, hooks, tolerance: 60_000, onError });
    expect((await handler(delivery(envelope('d-3')))).status).toBe(409);
    expect((await handler(delivery(envelope('d-4')))).status).toBe(500);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(events).toEqual(['receive:true', 'verified:d-3', 'outcome:duplicate:processing:409', 'receive:true', 'verified:d-4', 'outcome:failed:dedupe_store_failed:500']);
  });

  test('a store call past storeTimeoutMs is a failure (dedupe_store_failed), after the delivery was verified', async () => {
    const { events, hooks } = recorder();
    const store: DedupeStore = { claim: () => new Promise(() => {}), complete: async () => {}, release: async () => {} };
    const handler = sdk.createWebhookHandler({ secret: SECRET, on: () => {}, dedupe: store, hooks, tolerance: 60_000, storeTimeoutMs: 50, onError: () => {} });
    expect((await handler(delivery(envelope('d-silent')))).status).toBe(500);
    expect(events).toEqual(['receive:true', 'verified:d-silent', 'outcome:failed:dedupe_store_failed:500']);
  });

  test('without a secret yet (SVC_WEBHOOK_SECRET unset) the 500 is a failure named no_secret, nothing verified', async () => {
    const { events, outcomes, hooks } = recorder();
    const saved = process.env['SVC_WEBHOOK_SECRET'];
    delete process.env['SVC_WEBHOOK_SECRET'];
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const response = await sdk.createWebhookHandler({ on: () => {}, hooks })(delivery(envelope('d-nosecret')));
      expect(response.status).toBe(500);
    } finally {
      logged.mockRestore();
      if (saved !== undefined) process.env['SVC_WEBHOOK_SECRET'] = saved;
    }
    expect(events).toEqual(['receive:true', 'outcome:failed:no_secret:500']);
    expect(outcomes[0]!.reason).toBeUndefined();
  });

  test('a body over maxBodyBytes is refused as body_too_large; hooks run in order, and what they throw changes no answer', async () => {
    const order: string[] = [];
    const handler = sdk.createWebhookHandler({
      secret: SECRET,
      on: () => {},
      maxBodyBytes: 10,
      hooks: [
        { onOutcome: (outcome) => { order.push(`a:${outcome.reason}`); throw new Error('exporter down'); } },
        { onReceive: () => { throw new Error('also down'); }, onOutcome: async (outcome) => { order.push(`b:${outcome.reason}`); throw new Error('async'); } },
      ],
    });
    const response = await handler(delivery(envelope()));
    expect(response.status).toBe(413);
    expect(order).toEqual(['a:body_too_large', 'b:body_too_large']);
  });

  test('the Node listener reports its deliveries through the same hooks', async () => {
    const { events, hooks } = recorder();
    const listener = sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on: () => {}, hooks }));
    const server = createServer((req, res) => void listener(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const body = envelope('d-node');
      const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      expect((await fetch(url, { method: 'POST', body, headers: { 'x-svc-signature': signature } })).status).toBe(200);
      expect((await fetch(url, { method: 'POST', body, headers: { 'x-svc-signature': 'sha256=00' } })).status).toBe(401);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(events).toEqual(['receive:true', 'verified:d-node', 'outcome:processed::200', 'receive:true', 'outcome:refused:invalid_signature:401']);
  });

  test.each([
    ['x', 'hooks must be an object of hooks (onReceive, onVerified, onOutcome), or an array of them'],
    [[null], 'hooks must be an object of hooks (onReceive, onVerified, onOutcome), or an array of them'],
    [[{ onOutcome: 'no' }], 'hooks.onOutcome must be a function'],
    [{ onDone: () => {} }, 'hooks.onDone is not a hook: use onReceive, onVerified, onOutcome'],
  ])('a bad hooks option %j is a TypeError naming it', (hooks, message) => {
    let thrown: unknown;
    try {
      sdk.createWebhookHandler({ secret: SECRET, on: () => {}, hooks: hooks as never });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as TypeError).message).toBe(`[svc-sdk] createWebhookHandler: ${message}`);
  });

  test('a set may leave a hook undefined; an empty list is no hooks', async () => {
    const handler = sdk.createWebhookHandler({ secret: SECRET, on: () => {}, hooks: [{ onOutcome: undefined }] });
    expect((await handler(delivery(envelope()))).status).toBe(200);
    expect((await sdk.createWebhookHandler({ secret: SECRET, on: () => {}, hooks: [] })(delivery(envelope()))).status).toBe(200);
  });
});
