// clientTelemetry's metrics and attempt spans, exactly: each duration point's attributes (status or
// error type, never both unasked), the instruments' names, units, descriptions and buckets, the
// upload size's attributes, when a failed attempt ends (before the wait, not after it), the default
// port of http, a retry cancelled by another hook, and a retried DELETE answered 404.
import { SpanStatusCode, type Attributes } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { APIConnectionError, Client, type ClientHooks } from '../../src/index.node.js';
import { clientTelemetry } from '../../src/otel/index.js';
import { createTelemetry, registerGlobals } from './support.js';

registerGlobals();
let telemetry = createTelemetry();
beforeEach(() => {
  telemetry = createTelemetry();
});

/** A client answered by `answer` (a status and body, or a thrown TypeError for no connection). */
function client(answer: (attempt: number, request: Request) => Response | Promise<Response>, options: { baseUrl?: string; hooks?: ClientHooks[]; maxRetries?: number } = {}) {
  let attempt = 0;
  return new Client({
    apiKey: 'vdr_metrics_0123456789',
    baseUrl: options.baseUrl ?? 'https://svc.test',
    logLevel: 'off',
    maxRetries: options.maxRetries ?? 2,
    hooks: [clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider, logger: { warn: () => {} } }), ...(options.hooks ?? [])],
    fetch: async (input, init) => answer(++attempt, new Request(input, init)),
  });
}

const busy = () => Response.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } });
const refuse = (): never => {
  throw new TypeError('fetch failed');
};

/** The duration points' attributes and counts, in a stable order. */
async function durations(): Promise<Array<[Attributes, number]>> {
  const points = await telemetry.points('http.client.request.duration');
  return points.map((point): [Attributes, number] => [point.attributes, (point.value as Histogram).count]).sort(([a], [b]) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

describe('clientTelemetry() metrics', () => {
  it('a duration point per attempt outcome: a status when answered, an error type when failed, neither else', async () => {
    const answers = [busy, () => Response.json({ success: true, data: [] })];
    await client((attempt) => answers[attempt - 1]!()).request({ method: 'GET', path: '/rooms' });
    await expect(client(refuse, { maxRetries: 0 }).request({ method: 'GET', path: '/rooms' })).rejects.toBeInstanceOf(APIConnectionError);
    const base = { 'http.request.method': 'GET', 'server.address': 'svc.test', 'server.port': 443, 'url.template': '/api/v1/rooms' };
    // Strictly: an attribute set to undefined is an attribute too many.
    expect(await durations()).toStrictEqual([
      [{ ...base, 'http.response.status_code': 200 }, 1],
      [{ ...base, 'http.response.status_code': 503, 'error.type': '503' }, 1],
      [{ ...base, 'error.type': 'APIConnectionError' }, 1],
    ].sort(([a], [b]) => JSON.stringify(a).localeCompare(JSON.stringify(b))));
    const spans = await telemetry.spans();
    const attempts = spans.filter((span) => span.name === 'GET /api/v1/rooms');
    expect(attempts.map((span) => [span.attributes['http.response.status_code'], span.attributes['error.type'], span.status.code])).toEqual([
      [503, '503', SpanStatusCode.ERROR],
      [200, undefined, SpanStatusCode.UNSET],
      [undefined, 'APIConnectionError', SpanStatusCode.ERROR],
    ]);
  });

  it('error.type is the status from 400 up, and the error’s class below it (a write answered a redirect)', async () => {
    await client(() => Response.json({ error: 'bad' }, { status: 400 })).request({ method: 'POST', path: '/rooms', json: {} }).catch(() => undefined);
    await client(() => new Response(null, { status: 307, headers: { location: '/api/v1/elsewhere' } })).request({ method: 'POST', path: '/rooms', json: {} }).catch(() => undefined);
    // client.request is operation `request`: its call span's name.
    const calls = (await telemetry.spans()).filter((span) => span.name === 'request');
    expect(calls.map((span) => [span.attributes['error.type'], span.status.message])).toEqual([
      ['400', 'BadRequestError'],
      ['APIError', 'APIError'],
    ]);
  });

  it('the instruments: names, units, descriptions and the conventions’ duration buckets', async () => {
    await client(() => Response.json({ success: true, data: { id: 1 } }, { status: 201 })).documents.upload(1, new Blob(['%PDF-1.4'], { type: 'application/pdf' }), { filename: 'a.pdf' }).catch(() => undefined);
    const { resourceMetrics } = await telemetry.collect();
    const metrics = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
    expect(metrics.map(({ descriptor }) => [descriptor.name, descriptor.unit, descriptor.description])).toEqual([
      ['http.client.request.duration', 's', 'Duration of HTTP client requests (each attempt).'],
      ['http.client.request.body.size', 'By', 'Size of HTTP client request bodies: uploads (those the SDK knows the size of).'],
    ]);
    const duration = metrics[0]!.dataPoints[0]!.value as Histogram;
    expect(duration.buckets.boundaries).toEqual([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);
    expect(metrics[1]!.dataPoints.map((point) => point.attributes)).toEqual([
      { 'http.request.method': 'POST', 'url.template': '/api/v1/rooms/{room_id}/documents', 'server.address': 'svc.test' },
    ]);
  });

  it('a duration is the attempt’s, in seconds', async () => {
    await client(async () => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      return Response.json({ success: true, data: [] });
    }).request({ method: 'GET', path: '/rooms' });
    const [point] = await telemetry.points('http.client.request.duration');
    const seconds = (point!.value as Histogram).sum!;
    expect(seconds).toBeGreaterThanOrEqual(0.05);
    expect(seconds).toBeLessThan(5);
  });

  it('a request without a body records no size', async () => {
    await client(() => Response.json({ secret: 'whsec_x' })).webhooks.rotateSecret(3);
    expect(await telemetry.points('http.client.request.body.size')).toEqual([]);
  });
});

describe('clientTelemetry() attempt spans', () => {
  it('a failed attempt ends when it failed, not when its retry starts (after a 1 s Retry-After)', async () => {
    const answers = [() => Response.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '1' } }), () => Response.json({ success: true, data: [] })];
    await client((attempt) => answers[attempt - 1]!()).request({ method: 'GET', path: '/rooms' });
    const [failed, retried] = (await telemetry.spans()).filter((span) => span.name === 'GET /api/v1/rooms');
    const failedEnd = hrTimeToMilliseconds(failed!.endTime);
    expect(failedEnd - hrTimeToMilliseconds(failed!.startTime)).toBeLessThan(500);
    expect(hrTimeToMilliseconds(retried!.startTime) - failedEnd).toBeGreaterThanOrEqual(800);
  }, 10_000);

  it.each([
    ['http://svc.test', 'svc.test', 80],
    ['https://svc.test', 'svc.test', 443],
    ['https://svc.test:443', 'svc.test', 443],
    ['http://svc.test:8080', 'svc.test', 8080],
    ['http://SVC.Test:80', 'svc.test', 80],
    ['http://127.0.0.1:4010', '127.0.0.1', 4010],
    ['http://[::1]:8080', '[::1]', 8080],
    ['http://[::1]', '[::1]', 80],
  ])('server.address and server.port of %s: %s, %d', async (baseUrl, address, port) => {
    await client(() => Response.json({ success: true, data: [] }), { baseUrl }).request({ method: 'GET', path: '/rooms' });
    const [attempt] = (await telemetry.spans()).filter((span) => span.name === 'GET /api/v1/rooms');
    expect(attempt!.attributes).toMatchObject({ 'server.address': address, 'server.port': port });
  });

  it('origins of the same length as the last one are told apart', async () => {
    const hooks = clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider });
    for (const baseUrl of ['https://svc.test', 'https://abc.test', 'https://svc.test']) {
      const other = new Client({ apiKey: 'vdr_metrics_0123456789', baseUrl, hooks, fetch: async () => Response.json({ success: true, data: [] }) });
      await other.request({ method: 'GET', path: '/rooms' });
    }
    const attempts = (await telemetry.spans()).filter((span) => span.name === 'GET /api/v1/rooms');
    expect(attempts.map((span) => span.attributes['server.address'])).toEqual(['svc.test', 'abc.test', 'svc.test']);
  });

  it('a retry another hook cancels: one duration per attempt sent, the call span an error, the attempt not ended twice', async () => {
    const warned: string[] = [];
    const cancel: ClientHooks = { beforeRetry: () => false };
    const hooks = [clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider, logger: { warn: (line) => void warned.push(line) } }), cancel];
    const cancelled = new Client({ apiKey: 'vdr_metrics_0123456789', baseUrl: 'https://svc.test', logLevel: 'off', hooks, fetch: async () => busy() });
    await expect(cancelled.request({ method: 'GET', path: '/rooms' })).rejects.toMatchObject({ status: 503 });
    expect((await durations()).map(([, count]) => count)).toEqual([1]);
    const spans = await telemetry.spans();
    expect(spans.map((span) => [span.name, span.status.code])).toEqual([
      ['GET /api/v1/rooms', SpanStatusCode.ERROR],
      ['request', SpanStatusCode.ERROR],
    ]);
    expect(warned).toEqual([]);
  });

  it('a set split by the app (no beforeRequest): the other hooks find no span, do nothing and report nothing', async () => {
    const warned: string[] = [];
    const { beforeRequest, ...rest } = clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider, logger: { warn: (line) => void warned.push(line) } });
    expect(beforeRequest).toBeTypeOf('function');
    let attempt = 0;
    const split = new Client({
      apiKey: 'vdr_metrics_0123456789',
      baseUrl: 'https://svc.test',
      logLevel: 'off',
      hooks: rest,
      fetch: async () => (++attempt === 1 ? busy() : Response.json({ success: true, data: [] })),
    });
    await split.request({ method: 'GET', path: '/rooms' });
    await split.request({ method: 'GET', path: '/missing' }).catch(() => undefined);
    attempt = 0;
    await expect(split.request({ method: 'POST', path: '/rooms', json: {} })).rejects.toMatchObject({ status: 503 });
    expect(warned).toEqual([]);
    expect(await telemetry.spans()).toEqual([]);
  });

  it('a retried DELETE answered 404 (the first attempt deleted it): the call succeeds, its last attempt’s span says 404', async () => {
    const answers = [refuse, () => Response.json({ error: 'not found' }, { status: 404 })];
    await expect(client((attempt) => answers[attempt - 1]!()).webhooks.delete(5)).resolves.toBeUndefined();
    const spans = await telemetry.spans();
    expect(spans.map((span) => [span.name, span.attributes['error.type'], span.status.code])).toEqual([
      ['DELETE /api/v1/webhooks/{webhook_id}/', 'APIConnectionError', SpanStatusCode.ERROR],
      ['DELETE /api/v1/webhooks/{webhook_id}/', '404', SpanStatusCode.ERROR],
      ['webhooks.delete', undefined, SpanStatusCode.UNSET],
    ]);
  });
});
