import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { webhookTelemetry } from '../../src/otel/index.js';
import { createEmulator } from '../../src/testing/index.js';
import { createWebhookHandler, signPayload, toNodeListener, type WebhookEvent } from '../../src/webhooks/index.node.js';
import { createTelemetry, everyString, registerGlobals } from './support.js';

registerGlobals();
const telemetry = createTelemetry();
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('webhookTelemetry()', () => {
  it('a span per delivery the emulator sends, and per refused or duplicate one; counted by outcome; no secret, signature or body in them', async () => {
    const emulator = createEmulator({ deliveryDelayMs: 0 });
    closers.push(() => emulator.close());
    const client = new Client({ apiKey: 'vdr_test', baseUrl: 'https://svc.test', fetch: emulator.fetch });

    // The receiver: a real node:http server on loopback, the handler behind toNodeListener.
    // The listener is made once the emulator issued the endpoint's secret.
    const receiver: { listener?: ReturnType<typeof toNodeListener> } = {};
    const server = createServer((req, res) => void receiver.listener!(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const { secret } = await client.webhooks.create({ url, name: 'otel', event_types: null });
    const received: WebhookEvent[] = [];
    receiver.listener = toNodeListener(
      createWebhookHandler({
        secret,
        on: (event) => {
          received.push(event);
          if (event.event === 'job.failed') throw new Error('cannot handle it');
        },
        onError: () => {},
        hooks: webhookTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider }),
      }),
    );

    await emulator.trigger('credit.low');
    await emulator.waitForDelivery((attempt) => attempt.event === 'credit.low');
    await emulator.trigger('job.failed');
    await emulator.waitForDelivery((attempt) => attempt.event === 'job.failed');
    // A replay of the first delivery (a duplicate), a forged one, and one with no signature.
    const first = received[0]!;
    const replayBody = JSON.stringify(first);
    const replaySignature = await signPayload(replayBody, secret);
    expect((await fetch(url, { method: 'POST', body: replayBody, headers: { 'x-svc-signature': replaySignature } })).status).toBe(200);
    const forgedSignature = await signPayload(replayBody, 'whsec_forger');
    expect((await fetch(url, { method: 'POST', body: replayBody, headers: { 'x-svc-signature': forgedSignature } })).status).toBe(401);
    expect((await fetch(url, { method: 'POST', body: replayBody })).status).toBe(401);

    const spans = (await telemetry.spans()).filter((span) => span.name.startsWith('webhook '));
    expect(spans.map((span) => [span.name, span.attributes['svc.webhook.outcome'], span.attributes['error.type'] ?? null])).toEqual([
      ['webhook credit.low', 'processed', null],
      ['webhook job.failed', 'failed', 'handler_failed'],
      ['webhook credit.low', 'duplicate', null],
      ['webhook delivery', 'refused', 'invalid_signature'],
      ['webhook delivery', 'refused', 'missing_signature'],
    ]);
    expect(spans.every((span) => span.kind === SpanKind.CONSUMER)).toBe(true);
    expect(spans[0]!.attributes).toEqual({
      'svc.webhook.outcome': 'processed',
      'http.response.status_code': 200,
      'svc.webhook.event': 'credit.low',
      'svc.webhook.delivery_id': first.delivery_id,
      'svc.webhook.dedupe': 'new',
    });
    expect(spans[2]!.attributes).toMatchObject({ 'svc.webhook.dedupe': 'done', 'svc.webhook.delivery_id': first.delivery_id });
    expect(spans.map((span) => span.status.code)).toEqual([SpanStatusCode.UNSET, SpanStatusCode.ERROR, SpanStatusCode.UNSET, SpanStatusCode.ERROR, SpanStatusCode.ERROR]);

    const counted = await telemetry.points('svc.webhook.deliveries');
    const byOutcome = Object.fromEntries(
      ['processed', 'failed', 'duplicate', 'refused'].map((outcome) => [
        outcome,
        counted.filter((point) => point.attributes['svc.webhook.outcome'] === outcome).reduce((sum, point) => sum + (point.value as number), 0),
      ]),
    );
    expect(byOutcome).toEqual({ processed: 1, failed: 1, duplicate: 1, refused: 2 });

    // Searched: neither the secret, nor a signature sent, nor the event's data.
    const exported = everyString(spans, [...counted, ...(await telemetry.points('svc.webhook.delivery.duration'))]);
    expect(exported).toContain(first.delivery_id);
    for (const secretValue of [secret, secret.replace(/^whsec_/, ''), replaySignature, replaySignature.slice(7), forgedSignature.slice(7), 'balance', 'threshold', 'sha256=']) {
      expect(exported).not.toContain(secretValue);
    }
  });
});
