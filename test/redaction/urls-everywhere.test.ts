// Query tokens in every place a span, a metric, a log line or an error carries a URL or a name made
// from one: one rule (shared/redact.ts) for all of them. A call whose path and query hold an
// access_token, a jwt, a sid, a session and an OAuth code is retried, given up on, answered after a
// retry, and refused a connection; none of the values reaches a log line (message or fields), a
// span (name, attributes, status), a metric's attributes, or an error (message, url, inspect), while
// the request itself carried them all. Span names and metric series stay one per route.
import { inspect } from 'node:util';
import { SpanKind } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type Logger } from '../../src/index.node.js';
import { clientTelemetry } from '../../src/otel/index.js';
import { createTelemetry, everyString, registerGlobals } from '../otel/support.js';

registerGlobals();
const telemetry = createTelemetry();
const TOKENS = { access_token: 'T1accesstoken', jwt: 'T2jsonwebtoken', sid: 'T3sessionid', session: 'T4session', code: 'T5oauthcode' };
const PATH = `/rooms?access_token=${TOKENS.access_token}&jwt=${TOKENS.jwt}`;
const QUERY = { sid: TOKENS.sid, session: TOKENS.session, code: TOKENS.code, q: 'kept value' };

/** Every log line, its message and its fields. */
const lines: Array<{ level: string; message: string; details: unknown[] }> = [];
const record = (level: string) => (message: string, ...details: unknown[]) => void lines.push({ level, message, details });
const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };

/** What the next attempts are answered: a status, or `'refuse'` for no connection. */
const answers: Array<number | 'refuse'> = [];
const sent: string[] = [];
const client = new Client({
  apiKey: 'vdr_redaction_0123456789',
  baseUrl: 'https://svc.test',
  logger,
  logLevel: 'debug',
  maxRetries: 1,
  hooks: clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider }),
  fetch: async (input) => {
    sent.push(String(input instanceof Request ? input.url : input));
    const answer = answers.shift() ?? 200;
    if (answer === 'refuse') throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    return Response.json(answer === 200 ? { success: true, data: [] } : { error: 'busy' }, { status: answer, headers: { 'retry-after': '0' } });
  },
});

afterEach(() => {
  telemetry.reset();
  lines.length = 0;
  sent.length = 0;
  answers.length = 0;
});

/** Fails when any token shows in `text`; passes its length through so an empty text cannot pass unnoticed. */
function expectNoToken(text: string): void {
  expect(text.length).toBeGreaterThan(0);
  for (const value of Object.values(TOKENS)) expect(text).not.toContain(value);
}

async function exported(): Promise<string> {
  return everyString(await telemetry.spans(), [...(await telemetry.points('http.client.request.duration'))]);
}

describe('query tokens, everywhere a URL is carried', () => {
  it('a call retried and given up on (503, 503): logs at debug and info (a failure handed to the caller is not also a warning), spans, metrics and the error hold no token', async () => {
    answers.push(503, 503);
    const error = await client.request({ method: 'GET', path: PATH, query: QUERY }).then(
      () => undefined,
      (failure: unknown) => failure as Error & { url: string },
    );
    expect(error?.name).toBe('InternalServerError');
    // The request itself carried every value.
    for (const value of Object.values(TOKENS)) expect(sent[0]).toContain(value);
    expect(lines.map(({ level }) => level)).toEqual(['debug', 'info', 'debug', 'info']);
    expectNoToken(JSON.stringify(lines));
    expect(lines[0]!.message).toContain('access_token=[redacted]&jwt=[redacted]&sid=[redacted]&session=[redacted]&code=[redacted]&q=kept+value');
    expectNoToken(error!.message);
    expectNoToken(error!.url);
    expectNoToken(inspect(error, { depth: 10 }));
    expectNoToken(JSON.stringify(error));
    expect(error!.message).toContain('access_token=[redacted]');
    const spans = await exported();
    expectNoToken(spans);
    const attempt = (await telemetry.spans()).find((span) => span.kind === SpanKind.CLIENT)!;
    expect(attempt.attributes['url.full']).toBe(
      'https://svc.test/api/v1/rooms?access_token=REDACTED&jwt=REDACTED&sid=REDACTED&session=REDACTED&code=REDACTED&q=kept+value',
    );
  });

  it('a call answered after a retry: no token in its log lines or spans; no span name holds a query', async () => {
    answers.push(503, 200);
    await client.request({ method: 'GET', path: PATH, query: QUERY });
    expect(lines.map(({ level }) => level)).toEqual(['debug', 'info', 'debug']);
    expectNoToken(JSON.stringify(lines));
    expectNoToken(await exported());
    const spans = await telemetry.spans();
    expect(spans).toHaveLength(3);
    for (const span of spans) expect(span.name).not.toMatch(/[?#]/);
    const call = spans.find((span) => span.kind === SpanKind.INTERNAL)!;
    expect(call.attributes['svc.operation']).toBe(call.name);
    expect(String(call.attributes['svc.operation'])).not.toMatch(/[?#]/);
  });

  it('a call refused a connection twice: the debug lines (with the failure’s reason), the spans and the APIConnectionError hold no token', async () => {
    answers.push('refuse', 'refuse');
    const error = await client.request({ method: 'GET', path: PATH, query: QUERY }).then(
      () => undefined,
      (failure: unknown) => failure as Error & { url: string },
    );
    expect(error?.name).toBe('APIConnectionError');
    expect(lines.map(({ level }) => level)).toEqual(['debug', 'info', 'debug', 'info']);
    expectNoToken(JSON.stringify(lines));
    expectNoToken(error!.message);
    expectNoToken(error!.url);
    expectNoToken(inspect(error, { depth: 10 }));
    expectNoToken(await exported());
  });

  it('user info in the base URL is refused when the client is made, unquoted (fetch would quote it whole in its error)', () => {
    for (const baseUrl of ['https://admin:T6password@svc.test', 'https://T6password@svc.test', 'https://:T6password@svc.test']) {
      let error: unknown;
      try {
        new Client({ apiKey: 'vdr_redaction_0123456789', baseUrl, fetch: async () => Response.json({}) });
      } catch (failure) {
        error = failure;
      }
      expect(error).toMatchObject({ name: 'ValidationError', issues: [{ path: ['baseUrl'], message: expect.stringContaining('user:password@') }] });
      expect(inspect(error, { depth: 10 })).not.toContain('T6password');
    }
  });

  it('ids and uuids in client.request paths make one span name and one duration series per route', async () => {
    const uuids = ['3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60', 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d'];
    for (const uuid of uuids) await client.request({ method: 'GET', path: `/share/${uuid}` });
    for (const id of [41, 42]) await client.request({ method: 'GET', path: `/rooms/${id}` });
    const spans = await telemetry.spans();
    const names = new Set(spans.map((span) => span.name));
    // One attempt span per route, and one call span for them all (client.request is operation `request`).
    expect([...names].sort()).toEqual(['GET /api/v1/rooms/{id}', 'GET /api/v1/share/{id}', 'request']);
    // Names, operations and metric series: no uuid and no id (url.full, a span's alone, is the one place the URL is whole).
    const points = (await telemetry.points('http.client.request.duration')).filter((point) => /share|rooms\/./.test(String(point.attributes['url.template'])));
    const named = JSON.stringify([[...names], spans.map((span) => span.attributes['svc.operation'] ?? null), spans.map((span) => span.attributes['url.template'] ?? null), points.map((point) => point.attributes)]);
    for (const id of [...uuids, '/41', '/42']) expect(named).not.toContain(id);
    expect(points.map((point) => point.attributes['url.template']).sort()).toEqual(['/api/v1/rooms/{id}', '/api/v1/share/{id}']);
  });
});
