import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { APIConnectionError, Client, NotFoundError } from '../../src/index.node.js';
import { clientTelemetry } from '../../src/otel/index.js';
import { createEmulator } from '../../src/testing/index.js';
import { countOf, createTelemetry, everyString, registerGlobals, sumOf } from './support.js';

registerGlobals();
const telemetry = createTelemetry();
const API_KEY = 'vdr_otel_0123456789abcdefSECRET';
const BASE_URL = 'https://svc.test';
const emulator = createEmulator({ apiKey: API_KEY, pageSize: 2 });
afterAll(() => emulator.close());

/** What the client sent, and a switch to answer the next requests 503 (before the emulator sees them). */
const sent: { url: string; headers: Headers }[] = [];
let unavailable = 0;
let unreachable = 0;
const client = new Client({
  apiKey: API_KEY,
  baseUrl: BASE_URL,
  logLevel: 'error',
  hooks: clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider }),
  fetch: async (input, init) => {
    sent.push({ url: String(input), headers: new Headers(init?.headers) });
    if (unreachable > 0) {
      unreachable--;
      throw new TypeError('fetch failed');
    }
    if (unavailable > 0) {
      unavailable--;
      return Response.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } });
    }
    return emulator.fetch(input, init);
  },
});

beforeEach(() => {
  telemetry.reset();
  sent.length = 0;
});

/** The finished spans of one call: its span and its attempts' spans, in order. */
async function callSpans(operation: string): Promise<{ call: ReadableSpan; attempts: ReadableSpan[] }[]> {
  const spans = await telemetry.spans();
  return spans
    .filter((span) => span.name === operation)
    .map((call) => ({
      call,
      attempts: spans.filter((span) => span.parentSpanContext?.spanId === call.spanContext().spanId),
    }));
}

describe('clientTelemetry()', () => {
  it('a retried call (503, then 200): one call span, two client spans under it, resend count 1, traceparent per attempt', async () => {
    const deal = await client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
    telemetry.reset();
    sent.length = 0;
    unavailable = 1;
    const job = telemetry.tracerProvider.getTracer('app');
    await job.startActiveSpan('nightly-sync', async (span) => {
      await client.transactions.list({ deal_id: deal.id });
      span.end();
    });
    const [listed] = await callSpans('transactions.list');
    const { call, attempts } = listed!;
    const app = (await telemetry.spans()).find((span) => span.name === 'nightly-sync')!;
    expect(call.parentSpanContext?.spanId).toBe(app.spanContext().spanId);
    expect(call.kind).toBe(SpanKind.INTERNAL);
    // The call span is named after the operation, and says which one it is as an attribute too (spans are often searched by attribute).
    expect([call.name, call.attributes]).toEqual(['transactions.list', { 'svc.operation': 'transactions.list' }]);
    expect(attempts.map((span) => span.name)).toEqual(['GET /api/v1/svc/transactions', 'GET /api/v1/svc/transactions']);
    expect(attempts.map((span) => span.kind)).toEqual([SpanKind.CLIENT, SpanKind.CLIENT]);
    expect(attempts[0]!.attributes).toEqual({
      'http.request.method': 'GET',
      'server.address': 'svc.test',
      'server.port': 443,
      'url.full': `https://svc.test/api/v1/svc/transactions?deal_id=${deal.id}`,
      'url.template': '/api/v1/svc/transactions',
      'svc.operation': 'transactions.list',
      'http.response.status_code': 503,
      'error.type': '503',
    });
    expect(attempts[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(attempts[1]!.attributes).toMatchObject({ 'http.request.resend_count': 1, 'http.response.status_code': 200 });
    expect(attempts[1]!.attributes['error.type']).toBeUndefined();
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    // Each attempt carried its own span as the parent, in the trace of the call.
    expect(sent.map(({ headers }) => headers.get('traceparent'))).toEqual(
      attempts.map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`),
    );
    expect(new Set(attempts.map((span) => span.spanContext().traceId))).toEqual(new Set([app.spanContext().traceId]));
    const durations = (await telemetry.points('http.client.request.duration')).filter((point) => point.attributes['url.template'] === '/api/v1/svc/transactions');
    expect(durations.map((point) => [point.attributes['http.response.status_code'], countOf(point)]).sort()).toEqual([[200, 1], [503, 1]]);
    expect(durations[0]!.attributes['url.full']).toBeUndefined();
  });

  it('a failed call: the call span is an error with error.type, and so is its attempt', async () => {
    await expect(client.transactions.update(999_999, { linked_room_id: 1 })).rejects.toBeInstanceOf(NotFoundError);
    const [{ call, attempts }] = (await callSpans('transactions.update')) as [{ call: ReadableSpan; attempts: ReadableSpan[] }];
    expect(call.status).toEqual({ code: SpanStatusCode.ERROR, message: 'NotFoundError' });
    expect(call.attributes['error.type']).toBe('404');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.name).toBe('PATCH /api/v1/svc/transactions/{transaction_id}');
    expect(attempts[0]!.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': '404', 'url.template': '/api/v1/svc/transactions/{transaction_id}' });
  });

  it('a call that never got an answer: each attempt span names the error class, none has a status code', async () => {
    unreachable = 3;
    await expect(client.webhooks.list({ maxPages: 1 })).rejects.toBeInstanceOf(APIConnectionError);
    const [{ call, attempts }] = (await callSpans('webhooks.list')) as [{ call: ReadableSpan; attempts: ReadableSpan[] }];
    expect(call.attributes['error.type']).toBe('APIConnectionError');
    expect(attempts.map((span) => span.attributes['error.type'])).toEqual(['APIConnectionError', 'APIConnectionError', 'APIConnectionError']);
    expect(attempts.map((span) => span.attributes['http.response.status_code'])).toEqual([undefined, undefined, undefined]);
    expect(attempts.map((span) => span.attributes['http.request.resend_count'])).toEqual([undefined, 1, 2]);
  });

  it('a paginated list: one call span per page, each with its attempt', async () => {
    const deal = await client.deals.create({ name: 'Paged', stage: 'sourcing', asset_class: 'equity' });
    for (let index = 0; index < 5; index++) await client.transactions.create({ name: `T${index}`, deal_id: deal.id });
    telemetry.reset();
    expect(await client.transactions.list({ deal_id: deal.id })).toHaveLength(5);
    const pages = await callSpans('transactions.list');
    expect(pages).toHaveLength(3);
    expect(pages.map(({ attempts }) => attempts.length)).toEqual([1, 1, 1]);
    expect(pages.map(({ attempts }) => attempts[0]!.attributes['url.template'])).toEqual(Array(3).fill('/api/v1/svc/transactions'));
    expect(new Set(pages.map(({ attempts }) => attempts[0]!.attributes['url.full'])).size).toBe(3);
  });

  it('an upload: the client span carries the body size, and the upload bytes are recorded', async () => {
    const room = await client.rooms.create({ name: 'Data room', room_type: 'company_investment' });
    const before = (await telemetry.points('http.client.request.body.size')).reduce((sum, point) => sum + sumOf(point), 0);
    telemetry.reset();
    const content = new Uint8Array(10_000).fill(65);
    await client.documents.upload(room.id, new Blob([content], { type: 'application/pdf' }), { filename: 'terms.pdf' });
    const [{ call, attempts }] = (await callSpans('documents.upload')) as [{ call: ReadableSpan; attempts: ReadableSpan[] }];
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.name).toBe('POST /api/v1/rooms/{room_id}/documents');
    const length = Number(sent.at(-1)!.headers.get('content-length'));
    expect(length).toBeGreaterThan(10_000);
    expect(attempts[0]!.attributes).toMatchObject({ 'http.request.body.size': length, 'http.response.status_code': 201 });
    const after = (await telemetry.points('http.client.request.body.size')).reduce((sum, point) => sum + sumOf(point), 0);
    expect(after - before).toBe(length);
  });

  it('url.full keeps no secret-looking query value and no user info', async () => {
    await client.request({ method: 'GET', path: '/rooms', query: { access_token: 'tok-123', q: 'a b', ApiKey: 'k-9' } }).catch(() => undefined);
    const [{ attempts }] = (await callSpans('request')) as [{ call: ReadableSpan; attempts: ReadableSpan[] }];
    expect(attempts[0]!.attributes['url.full']).toBe('https://svc.test/api/v1/rooms?access_token=REDACTED&q=a+b&ApiKey=REDACTED');
  });

  it('no API key anywhere in what is exported, though the key went out with every request', async () => {
    await client.rooms.create({ name: 'Secret room', room_type: 'company_investment' });
    await client.transactions.update(123_456, { linked_room_id: 1 }).catch(() => undefined);
    expect(sent.every(({ headers }) => headers.get('authorization') === `Bearer ${API_KEY}`)).toBe(true);
    const exported = everyString(await telemetry.spans(), [
      ...(await telemetry.points('http.client.request.duration')),
      ...(await telemetry.points('http.client.request.body.size')),
    ]);
    expect(exported).toContain('rooms.create');
    expect(exported).not.toContain(API_KEY);
    expect(exported).not.toContain(API_KEY.slice(4));
    expect(exported.toLowerCase()).not.toContain('bearer');
  });

  it('one set of telemetry hooks shared by clients of several origins: each span names its own server', async () => {
    const hooks = clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider });
    // Origins that start alike: a cached origin must end where the URL's path starts.
    const origins = ['https://svc.test', 'https://svc.test:8443', 'https://svc.test.eu', 'https://svc.test'];
    for (const baseUrl of origins) {
      const other = new Client({ apiKey: API_KEY, baseUrl, hooks, fetch: async () => Response.json({ success: true, data: [] }) });
      await other.request({ method: 'GET', path: '/rooms' });
    }
    const attempts = (await telemetry.spans()).filter((span) => span.kind === SpanKind.CLIENT);
    expect(attempts.map((span) => [span.attributes['server.address'], span.attributes['server.port']])).toEqual([
      ['svc.test', 443],
      ['svc.test', 8443],
      ['svc.test.eu', 443],
      ['svc.test', 443],
    ]);
  });

  it('with propagate: false, no traceparent is sent', async () => {
    const quiet = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      hooks: clientTelemetry({ tracerProvider: telemetry.tracerProvider, propagate: false }),
      fetch: async (input, init) => {
        sent.push({ url: String(input), headers: new Headers(init?.headers) });
        return emulator.fetch(input, init);
      },
    });
    await quiet.rooms.create({ name: 'Quiet', room_type: 'company_investment' });
    expect(sent.at(-1)!.headers.get('traceparent')).toBeNull();
    expect(await callSpans('rooms.create')).toHaveLength(1);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
