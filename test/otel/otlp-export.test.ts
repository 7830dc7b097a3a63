import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { clientTelemetry, webhookTelemetry } from '../../src/otel/index.js';
import { createEmulator } from '../../src/testing/index.js';
import { createWebhookHandler, signPayload } from '../../src/webhooks/index.node.js';
import { registerGlobals } from './support.js';

registerGlobals();

/** An OTLP/HTTP span as the JSON encoding carries it (the fields these tests read). */
interface OtlpSpan {
  name: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

/** A stand-in for a collector's OTLP/HTTP traces endpoint on loopback: decodes every export it gets. */
const exports: { path: string; contentType: string | undefined; raw: string }[] = [];
const collector = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    const raw = (request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8');
    exports.push({ path: request.url!, contentType: request.headers['content-type'], raw });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let endpoint = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
});
afterAll(async () => {
  collector.closeAllConnections();
  await new Promise((resolve) => collector.close(resolve));
});

/** Every span of every export received, decoded. */
function receivedSpans(): OtlpSpan[] {
  return exports.flatMap(({ raw }) =>
    (JSON.parse(raw) as { resourceSpans: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((resource) =>
      resource.scopeSpans.filter((scope) => scope.scope.name === 'svc-sdk').flatMap((scope) => scope.spans),
    ),
  );
}

function attribute(span: OtlpSpan, key: string): string | number | undefined {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
}

describe('OTLP/HTTP export to a collector on loopback', () => {
  it('the call, attempt and delivery spans reach the collector, linked and with their attributes; no key, secret or signature in the bytes sent', async () => {
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: endpoint }) })] });
    const apiKey = 'vdr_otlp_0123456789SECRETKEY';
    const emulator = createEmulator({ apiKey });
    const client = new Client({ apiKey, baseUrl: 'https://svc.test', fetch: emulator.fetch, hooks: clientTelemetry({ tracerProvider }) });
    await client.rooms.create({ name: 'Exported', room_type: 'company_investment' });

    const secret = 'whsec_otlp_secret_value';
    const handler = createWebhookHandler({ secret, on: () => {}, hooks: webhookTelemetry({ tracerProvider }) });
    const body = JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: 'dlv_otlp_1', timestamp: new Date().toISOString(), data: {} });
    const signature = await signPayload(body, secret);
    expect((await handler(new Request('http://127.0.0.1/hook', { method: 'POST', body, headers: { 'x-svc-signature': signature } }))).status).toBe(200);
    await tracerProvider.forceFlush();
    await tracerProvider.shutdown();
    await emulator.close();

    expect(exports.length).toBeGreaterThan(0);
    expect(exports.every(({ path, contentType }) => path === '/v1/traces' && contentType === 'application/json')).toBe(true);
    const spans = receivedSpans();
    const call = spans.find((span) => span.name === 'rooms.create')!;
    const attempt = spans.find((span) => span.name === 'POST /api/v1/rooms')!;
    const delivery = spans.find((span) => span.name === 'webhook ping.test')!;
    expect(attempt.parentSpanId).toBe(call.spanId);
    expect(attempt.kind).toBe(3); // SPAN_KIND_CLIENT in OTLP
    expect(attribute(attempt, 'http.request.method')).toBe('POST');
    expect(attribute(attempt, 'url.template')).toBe('/api/v1/rooms');
    expect(attribute(attempt, 'server.port')).toBe(443);
    expect(attribute(attempt, 'http.response.status_code')).toBe(201);
    expect(attribute(delivery, 'svc.webhook.delivery_id')).toBe('dlv_otlp_1');
    expect(attribute(delivery, 'svc.webhook.outcome')).toBe('processed');
    const sent = exports.map(({ raw }) => raw).join('\n');
    for (const secretValue of [apiKey, apiKey.slice(4), secret, signature, signature.slice(7)]) expect(sent).not.toContain(secretValue);
  });
});
