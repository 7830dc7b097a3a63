// webhookTelemetry() over a handler with an inbox: a delivery put in the inbox is the outcome `stored`
// (new to deduplication), one whose inbox failed is `failed` with error.type inbox_failed.
import { describe, expect, it } from 'vitest';
import { webhookTelemetry } from '../../src/otel/index.js';
import { createWebhookHandler, signPayload, type InboxEntry } from '../../src/webhooks/index.node.js';
import { createTelemetry, registerGlobals } from './support.js';

registerGlobals();

describe('webhookTelemetry() with an inbox', () => {
  it('names a stored delivery `stored` and an inbox that failed `inbox_failed`, in spans and metrics', async () => {
    const telemetry = createTelemetry();
    const stored: InboxEntry[] = [];
    let failing = false;
    const handler = createWebhookHandler({
      secret: 'whsec_inbox_otel',
      inbox: {
        async put(entry) {
          if (failing) throw new Error('redis down');
          stored.push(entry);
        },
      },
      onError: () => {},
      hooks: webhookTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider }),
    });
    const send = async (id: string) => {
      const body = JSON.stringify({ event: 'credit.low', version: '1.0', delivery_id: id, timestamp: new Date().toISOString(), data: { balance: 1, threshold: 5 } });
      const response = await handler(new Request('https://receiver.test/hook', { method: 'POST', body, headers: { 'x-svc-signature': await signPayload(body, 'whsec_inbox_otel') } }));
      return response.status;
    };
    expect(await send('kept')).toBe(200);
    failing = true;
    expect(await send('lost-for-now')).toBe(500);
    expect(stored.map((entry) => entry.deliveryId)).toEqual(['kept']);
    const spans = await telemetry.spans();
    const attributes = spans.map((span) => span.attributes);
    expect(attributes).toEqual([
      expect.objectContaining({ 'svc.webhook.outcome': 'stored', 'svc.webhook.delivery_id': 'kept', 'svc.webhook.dedupe': 'new' }),
      expect.objectContaining({ 'svc.webhook.outcome': 'failed', 'svc.webhook.delivery_id': 'lost-for-now', 'svc.webhook.dedupe': 'new', 'error.type': 'inbox_failed' }),
    ]);
    const counted = (await telemetry.points('svc.webhook.deliveries')).map((point) => point.attributes['svc.webhook.outcome']).sort();
    expect(counted).toEqual(['failed', 'stored']);
  });
});
