// webhookTelemetry's metrics and spans, exactly: each outcome's counter and duration attributes, the
// instruments' units and descriptions, the dedupe attribute (new for a processed delivery or one
// whose handler failed, none for a store that failed or a refusal), and what a report names.
import type { TracerProvider } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { webhookTelemetry } from '../../src/otel/index.js';
import { createWebhookHandler, type DedupeStore } from '../../src/webhooks/index.js';
import { envelope, SECRET, sign } from '../webhooks/wire.js';
import { createTelemetry, registerGlobals } from './support.js';

registerGlobals();

/** A handler whose `on` throws for delivery ids starting with `fail`, with the given dedupe store. */
function receiver(telemetry: ReturnType<typeof createTelemetry>, dedupe?: DedupeStore, tracerProvider?: TracerProvider) {
  const warned: string[] = [];
  const handler = createWebhookHandler({
    secret: SECRET,
    on: (event) => {
      if (event.delivery_id.startsWith('fail')) throw new Error('cannot');
    },
    onError: () => {},
    ...(dedupe ? { dedupe } : {}),
    hooks: webhookTelemetry({ tracerProvider: tracerProvider ?? telemetry.tracerProvider, meterProvider: telemetry.meterProvider, logger: { warn: (line) => void warned.push(line) } }),
  });
  const deliver = async (deliveryId: string, forged = false): Promise<number> => {
    const body = envelope(deliveryId);
    const signature = forged ? sign(body, 'whsec_other') : sign(body);
    return (await handler(new Request('https://receiver.test/hook', { method: 'POST', body, headers: { 'x-svc-signature': signature } }))).status;
  };
  return { deliver, warned };
}

const failingStore: DedupeStore = {
  claim: () => {
    throw new Error('store down');
  },
  complete: () => {},
  release: () => {},
};

describe('webhookTelemetry() metrics and attributes', () => {
  it('each outcome: the counter and the duration carry its outcome, event kind and error type', async () => {
    const telemetry = createTelemetry();
    const { deliver } = receiver(telemetry);
    expect([await deliver('ok-1'), await deliver('fail-1'), await deliver('x', true)]).toEqual([200, 500, 401]);
    const counted = await telemetry.points('svc.webhook.deliveries');
    // Sorted by their text, compared strictly: an attribute set to undefined is an attribute too many.
    const sort = <T,>(rows: T[]): T[] => rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const expected = [
      { 'svc.webhook.outcome': 'processed', 'svc.webhook.event': 'ping.test' },
      { 'svc.webhook.outcome': 'failed', 'svc.webhook.event': 'ping.test', 'error.type': 'handler_failed' },
      { 'svc.webhook.outcome': 'refused', 'error.type': 'invalid_signature' },
    ];
    expect(sort(counted.map((point) => [point.attributes, point.value]))).toStrictEqual(sort(expected.map((attributes) => [attributes, 1])));
    const durations = await telemetry.points('svc.webhook.delivery.duration');
    expect(sort(durations.map((point) => point.attributes))).toStrictEqual(sort(expected));
    // Seconds: each delivery took well under one.
    for (const point of durations) expect((point.value as Histogram).sum).toBeLessThan(1);
  });

  it('the dedupe attribute: new for a processed delivery and one whose handler failed; none for a failed store or a refusal', async () => {
    const telemetry = createTelemetry();
    const { deliver } = receiver(telemetry);
    await deliver('ok-2');
    await deliver('fail-2');
    await deliver('y', true);
    const store = receiver(telemetry, failingStore);
    expect(await store.deliver('ok-3')).toBe(500);
    const spans = await telemetry.spans();
    expect(spans.map((span) => [span.attributes['svc.webhook.outcome'], span.attributes['error.type'] ?? null, span.attributes['svc.webhook.dedupe'] ?? null])).toEqual([
      ['processed', null, 'new'],
      ['failed', 'handler_failed', 'new'],
      ['refused', 'invalid_signature', null],
      ['failed', 'dedupe_store_failed', null],
    ]);
    expect(Object.keys(spans[0]!.attributes).sort()).toEqual(['http.response.status_code', 'svc.webhook.dedupe', 'svc.webhook.delivery_id', 'svc.webhook.event', 'svc.webhook.outcome']);
  });

  it('the instruments: names, units and descriptions', async () => {
    const telemetry = createTelemetry();
    await receiver(telemetry).deliver('ok-4');
    const { resourceMetrics } = await telemetry.collect();
    expect(resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).map(({ descriptor }) => [descriptor.name, descriptor.unit, descriptor.description])).toEqual([
      ['svc.webhook.deliveries', '{delivery}', 'Webhook deliveries received, by outcome (processed, stored in the inbox, duplicate, refused, failed).'],
      ['svc.webhook.delivery.duration', 's', 'Time from a delivery’s arrival to its answer.'],
    ]);
  });

  it('a report names the delivery it happened in: `a delivery` before its kind is known, its id after', async () => {
    const telemetry = createTelemetry();
    const throwing: TracerProvider = {
      getTracer: () => {
        throw new Error('tracer down');
      },
    };
    const early = receiver(telemetry, undefined, throwing);
    await early.deliver('ok-5');
    expect(early.warned).toEqual([
      '[svc-sdk] webhookTelemetry: OpenTelemetry threw while tracing a delivery (Error: tracer down); it went on unchanged, without that telemetry; later failures are not reported',
    ]);
    const late = createWebhookHandler({
      secret: SECRET,
      on: () => {},
      hooks: webhookTelemetry({
        tracerProvider: telemetry.tracerProvider,
        meterProvider: {
          getMeter: () => {
            throw new Error('meter down');
          },
        },
        logger: { warn: (line) => void early.warned.push(line) },
      }),
    });
    const refusedBody = envelope('refused-1');
    await late(new Request('https://receiver.test/hook', { method: 'POST', body: refusedBody }));
    const body = envelope('late-1');
    await late(new Request('https://receiver.test/hook', { method: 'POST', body, headers: { 'x-svc-signature': sign(body) } }));
    expect(early.warned[1]).toBe(
      '[svc-sdk] webhookTelemetry: OpenTelemetry threw while tracing a delivery (Error: meter down); it went on unchanged, without that telemetry; later failures are not reported',
    );
    expect(early.warned).toHaveLength(2);
  });

  it('a span is given only the attributes its outcome has (none set to undefined); a set without onReceive does nothing and reports nothing', async () => {
    const telemetry = createTelemetry();
    const given: Array<Record<string, unknown>> = [];
    const span = { updateName: () => {}, setAttributes: (attributes: Record<string, unknown>) => void given.push(attributes), setStatus: () => {}, end: () => {} };
    const tracerProvider = { getTracer: () => ({ startSpan: () => span }) } as unknown as TracerProvider;
    const { deliver } = receiver(telemetry, undefined, tracerProvider);
    await deliver('dup-1');
    await deliver('dup-1');
    await deliver('z', true);
    expect(given.map((attributes) => Object.keys(attributes).sort())).toEqual([
      ['http.response.status_code', 'svc.webhook.dedupe', 'svc.webhook.delivery_id', 'svc.webhook.event', 'svc.webhook.outcome'],
      ['http.response.status_code', 'svc.webhook.dedupe', 'svc.webhook.delivery_id', 'svc.webhook.event', 'svc.webhook.outcome'],
      ['error.type', 'http.response.status_code', 'svc.webhook.outcome'],
    ]);
    const warned: string[] = [];
    const { onReceive, ...rest } = webhookTelemetry({ tracerProvider, meterProvider: telemetry.meterProvider, logger: { warn: (line) => void warned.push(line) } });
    expect(onReceive).toBeTypeOf('function');
    const handler = createWebhookHandler({ secret: SECRET, on: () => {}, hooks: rest });
    const body = envelope('split-1');
    expect((await handler(new Request('https://receiver.test/hook', { method: 'POST', body, headers: { 'x-svc-signature': sign(body) } }))).status).toBe(200);
    expect(warned).toEqual([]);
    expect(given).toHaveLength(3);
  });

  it('a span that fails at its end is reported with its delivery’s id', async () => {
    const telemetry = createTelemetry();
    const span = { updateName: () => {}, setAttributes: () => {}, setStatus: () => {}, end: () => {
      throw new Error('end down');
    } };
    const tracerProvider = { getTracer: () => ({ startSpan: () => span }) } as unknown as TracerProvider;
    const { deliver, warned } = receiver(telemetry, undefined, tracerProvider);
    await deliver('named-1');
    expect(warned).toEqual([expect.stringContaining('while tracing delivery named-1 (Error: end down)')]);
    const refused = receiver(telemetry, undefined, tracerProvider);
    await refused.deliver('named-2', true);
    expect(refused.warned).toEqual([expect.stringContaining('while tracing a delivery (Error: end down)')]);
  });
});
