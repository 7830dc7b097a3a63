// webhookTelemetry with an OpenTelemetry pipeline that throws: the receiver's answer never depends
// on it (the receiver ignores what a hook throws), and neither do the rest of the delivery's
// telemetry (a failing counter leaves the span to end; a failing exporter the counts to be made)
// nor the report: the first failure is reported once through the logger, none is swallowed unheard.
import type { Meter, MeterProvider, TracerProvider } from '@opentelemetry/api';
import { TracerProvider as SdkTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { webhookTelemetry, type WebhookTelemetryOptions } from '../../src/otel/index.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { envelope, SECRET, sign } from '../webhooks/wire.js';
import { createTelemetry, registerGlobals } from './support.js';

registerGlobals();

const boom = (where: string) => () => {
  throw new Error(`${where} is down`);
};

/** A logger that keeps its warn lines. */
function warnings() {
  const lines: string[] = [];
  return { logger: { warn: (message: string) => void lines.push(message) }, lines };
}

/** A handler with the telemetry of `options`, and a way to deliver one signed envelope (or a forged one) to it. */
function receiver(options: WebhookTelemetryOptions) {
  const handled: WebhookEvent[] = [];
  const handler = createWebhookHandler({ secret: SECRET, on: (event) => void handled.push(event), hooks: webhookTelemetry(options) });
  const deliver = async (forged = false): Promise<number> => {
    const body = envelope();
    const request = new Request('https://receiver.test/hook', { method: 'POST', body, headers: { 'x-svc-signature': forged ? sign(body, 'whsec_other') : sign(body) } });
    return (await handler(request)).status;
  };
  return { handled, deliver };
}

/** The sum of a counter's points. */
async function counted(telemetry: ReturnType<typeof createTelemetry>): Promise<number> {
  return (await telemetry.points('svc.webhook.deliveries')).reduce((sum, point) => sum + (point.value as number), 0);
}

describe('webhookTelemetry() with a pipeline that throws', () => {
  it('a counter that throws: deliveries are answered as before, each span still ends with its outcome; reported once', async () => {
    const telemetry = createTelemetry();
    const counter = { add: boom('counter') };
    const meter = { createCounter: () => counter, createHistogram: () => ({ record: () => {} }) } as unknown as Meter;
    const { logger, lines } = warnings();
    const { deliver, handled } = receiver({ tracerProvider: telemetry.tracerProvider, meterProvider: { getMeter: () => meter }, logger });
    expect([await deliver(), await deliver(true)]).toEqual([200, 401]);
    expect(handled).toHaveLength(1);
    const spans = await telemetry.spans();
    expect(spans.map((span) => [span.name, span.attributes['svc.webhook.outcome']])).toEqual([
      ['webhook ping.test', 'processed'],
      ['webhook delivery', 'refused'],
    ]);
    expect(lines).toEqual([expect.stringMatching(/^\[svc-sdk\] webhookTelemetry: OpenTelemetry threw while tracing delivery [\w-]+ \(Error: counter is down\)/)]);
  });

  it('a span processor that throws on end: the deliveries are still counted by outcome; reported once', async () => {
    const telemetry = createTelemetry();
    const processor: SpanProcessor = { onStart: () => {}, onEnd: boom('processor'), forceFlush: async () => {}, shutdown: async () => {} };
    const { logger, lines } = warnings();
    const { deliver } = receiver({ tracerProvider: new SdkTracerProvider({ spanProcessors: [processor] }), meterProvider: telemetry.meterProvider, logger });
    expect([await deliver(), await deliver(), await deliver(true)]).toEqual([200, 200, 401]);
    expect(await counted(telemetry)).toBe(3);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('(Error: processor is down)');
  });

  it('a tracer provider whose getTracer throws, and a meter provider whose getMeter does: answered as before, reported once', async () => {
    const tracerProvider: TracerProvider = { getTracer: boom('getTracer') };
    const meterProvider: MeterProvider = { getMeter: boom('getMeter') };
    const { logger, lines } = warnings();
    const { deliver, handled } = receiver({ tracerProvider, meterProvider, logger });
    expect([await deliver(), await deliver()]).toEqual([200, 200]);
    expect(handled).toHaveLength(2);
    expect(lines).toEqual([expect.stringContaining('(Error: getTracer is down)')]);
  });

  it('a tracer provider whose getTracer throws: the deliveries are still counted', async () => {
    const telemetry = createTelemetry();
    const { deliver } = receiver({ tracerProvider: { getTracer: boom('getTracer') }, meterProvider: telemetry.meterProvider, logger: { warn: () => {} } });
    await deliver();
    await deliver(true);
    expect(await counted(telemetry)).toBe(2);
  });
});
