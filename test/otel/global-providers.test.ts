// clientTelemetry() and webhookTelemetry() with no options: the globally registered providers (looked
// up at the first call, not when the hooks are made), traceparent sent by default, and a failing
// global pipeline reported through console.warn, once.
import { metrics, trace } from '@opentelemetry/api';
import { TracerProvider as SdkTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '../../src/index.node.js';
import { clientTelemetry, webhookTelemetry } from '../../src/otel/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { envelope, SECRET, sign } from '../webhooks/wire.js';
import { createTelemetry, registerGlobals } from './support.js';

registerGlobals();
// Made before any provider is registered, as an app's module-level hooks are.
const clientHooks = clientTelemetry();
const webhookHooks = webhookTelemetry();
const telemetry = createTelemetry();

afterEach(() => {
  vi.restoreAllMocks();
  trace.disable();
  metrics.disable();
});

describe('telemetry with the global providers', () => {
  it('hooks made before the providers were registered use them, and send traceparent', async () => {
    trace.setGlobalTracerProvider(telemetry.tracerProvider);
    metrics.setGlobalMeterProvider(telemetry.meterProvider);
    const sent: Headers[] = [];
    const client = new Client({
      apiKey: 'vdr_global_0123456789',
      baseUrl: 'https://svc.test',
      hooks: clientHooks,
      fetch: async (input, init) => {
        sent.push(new Request(input, init).headers);
        return Response.json({ success: true, data: [] });
      },
    });
    await client.request({ method: 'GET', path: '/rooms' });
    const handler = createWebhookHandler({ secret: SECRET, on: () => {}, hooks: webhookHooks });
    const body = envelope('global-1');
    expect((await handler(new Request('https://receiver.test/hook', { method: 'POST', body, headers: { 'x-svc-signature': sign(body) } }))).status).toBe(200);
    expect((await telemetry.spans()).map((span) => span.name)).toEqual(['GET /api/v1/rooms', 'request', 'webhook ping.test']);
    expect(sent[0]!.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect((await telemetry.points('http.client.request.duration')).length).toBe(1);
    expect((await telemetry.points('svc.webhook.deliveries')).length).toBe(1);
  });

  it('a failing global pipeline, with no logger given: the calls and deliveries succeed, console.warn hears it once per hooks', async () => {
    const processor: SpanProcessor = {
      onStart: () => {},
      onEnd: () => {
        throw new Error('global down');
      },
      forceFlush: async () => {},
      shutdown: async () => {},
    };
    trace.setGlobalTracerProvider(new SdkTracerProvider({ spanProcessors: [processor] }));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const hooks = clientTelemetry();
    const client = new Client({ apiKey: 'vdr_global_0123456789', baseUrl: 'https://svc.test', hooks, fetch: async () => Response.json({ success: true, data: { id: 1 } }, { status: 201 }) });
    await client.request({ method: 'POST', path: '/rooms', json: {} });
    await client.request({ method: 'POST', path: '/rooms', json: {} });
    const handler = createWebhookHandler({ secret: SECRET, on: () => {}, hooks: webhookTelemetry() });
    for (const id of ['global-2', 'global-3']) {
      const body = envelope(id);
      expect((await handler(new Request('https://receiver.test/hook', { method: 'POST', body, headers: { 'x-svc-signature': sign(body) } }))).status).toBe(200);
    }
    expect(warn.mock.calls.map(([line]) => String(line).slice(0, 40))).toEqual(['[svc-sdk] clientTelemetry: OpenTelemetry', '[svc-sdk] webhookTelemetry: OpenTelemetr']);
  });
});
