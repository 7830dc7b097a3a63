// Telemetry observes, it never decides: an OpenTelemetry pipeline that throws (a span processor, an
// exporter, a histogram, a meter, a tracer provider, a propagator) leaves every call's outcome as it
// was, at the wire (a created room stays created, once; a refusal stays the service's refusal), and
// is reported once through the logger given to clientTelemetry (console's warn by default).
import { context, propagation, type Attributes, type Meter, type MeterProvider, type TextMapPropagator, type TracerProvider } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { TracerProvider as SdkTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Client, NotFoundError, type ClientHooks } from '../../src/index.node.js';
import { clientTelemetry, type ClientTelemetryOptions } from '../../src/otel/index.js';
import { createEmulator } from '../../src/testing/index.js';
import { countOf, createTelemetry, registerGlobals } from './support.js';

registerGlobals();
const API_KEY = 'vdr_otel_failing_0123456789';
const emulator = createEmulator({ apiKey: API_KEY });
afterAll(() => emulator.close());

/** What the client sent and what it was answered, and a switch to answer the next requests 503 (before the emulator sees them). */
const sent: { method: string; url: string; headers: Headers; status?: number }[] = [];
let unavailable = 0;
beforeEach(() => {
  sent.length = 0;
  unavailable = 0;
});
afterEach(() => {
  vi.restoreAllMocks();
  // A registered global is only replaced once disabled.
  propagation.disable();
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});

function client(hooks: ClientHooks): Client {
  return new Client({
    apiKey: API_KEY,
    baseUrl: 'https://svc.test',
    logLevel: 'off',
    hooks,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const exchange: (typeof sent)[number] = { method: request.method, url: request.url, headers: request.headers };
      sent.push(exchange);
      if (unavailable > 0) {
        unavailable--;
        exchange.status = 503;
        return Response.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } });
      }
      const response = await emulator.fetch(request);
      exchange.status = response.status;
      return response;
    },
  });
}

/** A logger that keeps its warn lines. */
function warnings() {
  const lines: string[] = [];
  return { logger: { warn: (message: string) => void lines.push(message) }, lines };
}

const boom = (where: string) => () => {
  throw new Error(`${where} is down`);
};

/** A span processor that throws where `where` says. */
function throwingProcessor(where: 'onStart' | 'onEnd'): SpanProcessor {
  return {
    onStart: where === 'onStart' ? boom('onStart') : () => {},
    onEnd: where === 'onEnd' ? boom('onEnd') : () => {},
    forceFlush: async () => {},
    shutdown: async () => {},
  };
}

/** A meter provider whose instruments throw on every record (or whose getMeter throws). */
function throwingMeters(where: 'record' | 'getMeter'): MeterProvider {
  const histogram = { record: boom('histogram') };
  const meter = { createHistogram: () => histogram, createCounter: () => ({ add: boom('counter') }) } as unknown as Meter;
  return { getMeter: where === 'getMeter' ? boom('getMeter') : () => meter };
}

/** How many creates the service stored (answered 201): each call that took effect took it once. */
function stored(): number {
  return sent.filter(({ method, status }) => method === 'POST' && status === 201).length;
}

describe('clientTelemetry() with a pipeline that throws', () => {
  it('a span processor whose onEnd throws: the room the service stored (201) is the caller’s success, created once; reported once', async () => {
    const { logger, lines } = warnings();
    const traced = client(clientTelemetry({ tracerProvider: new SdkTracerProvider({ spanProcessors: [throwingProcessor('onEnd')] }), logger }));
    const room = await traced.rooms.create({ name: 'Processor onEnd', room_type: 'company_investment' });
    expect(room.name).toBe('Processor onEnd');
    await traced.rooms.create({ name: 'Processor onEnd', room_type: 'company_investment' });
    expect(sent).toHaveLength(2);
    expect(stored()).toBe(2);
    expect(lines).toEqual([
      '[svc-sdk] clientTelemetry: OpenTelemetry threw while tracing rooms.create (Error: onEnd is down); it went on unchanged, without that telemetry; later failures are not reported',
    ]);
  });

  it('a span processor whose onStart throws: nothing fails before sending; the request goes out without a traceparent', async () => {
    const { logger, lines } = warnings();
    const traced = client(clientTelemetry({ tracerProvider: new SdkTracerProvider({ spanProcessors: [throwingProcessor('onStart')] }), logger }));
    const room = await traced.rooms.create({ name: 'Processor onStart', room_type: 'company_investment' });
    expect(room.id).toBeGreaterThan(0);
    expect(sent).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('(Error: onStart is down)');
  });

  it('a histogram that throws: the call succeeds, and its spans are still exported, both ended', async () => {
    const telemetry = createTelemetry();
    const { logger, lines } = warnings();
    const traced = client(clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: throwingMeters('record'), logger }));
    await expect(traced.rooms.create({ name: 'Histogram', room_type: 'company_investment' })).resolves.toMatchObject({ name: 'Histogram' });
    const spans = await telemetry.spans();
    expect(spans.map((span) => span.name).sort()).toEqual(['POST /api/v1/rooms', 'rooms.create']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('(Error: histogram is down)');
  });

  it('a histogram that throws on a retried call: the retry still goes out and the call succeeds; both attempt spans end', async () => {
    const telemetry = createTelemetry();
    const { logger, lines } = warnings();
    const traced = client(clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: throwingMeters('record'), logger }));
    unavailable = 1;
    await expect(traced.webhooks.list({ maxPages: 1 })).resolves.toBeInstanceOf(Array);
    expect(sent.map(({ status }) => status)).toEqual([503, 200]);
    const spans = await telemetry.spans();
    expect(spans.map((span) => [span.name, span.attributes['http.response.status_code']])).toEqual([
      ['GET /api/v1/webhooks/', 503],
      ['GET /api/v1/webhooks/', 200],
      ['webhooks.list', undefined],
    ]);
    expect(lines).toHaveLength(1);
  });

  it('a histogram that throws once, at the end of an attempt that is retried: the retry goes out, and that failure is reported', async () => {
    const telemetry = createTelemetry();
    let failures = 1;
    const histogram = {
      record: () => {
        if (failures-- > 0) throw new Error('first record down');
      },
    };
    const meterProvider: MeterProvider = { getMeter: () => ({ createHistogram: () => histogram }) as unknown as Meter };
    const { logger, lines } = warnings();
    unavailable = 1;
    await expect(client(clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider, logger })).webhooks.list({ maxPages: 1 })).resolves.toBeInstanceOf(Array);
    expect(sent.map(({ status }) => status)).toEqual([503, 200]);
    expect(lines).toEqual([expect.stringContaining('while tracing webhooks.list (Error: first record down)')]);
  });

  it('a meter provider whose getMeter throws: the call succeeds, traced; getMeter is asked again on the next call', async () => {
    const telemetry = createTelemetry();
    const meterProvider = throwingMeters('getMeter');
    const getMeter = vi.spyOn(meterProvider, 'getMeter');
    const { logger, lines } = warnings();
    const traced = client(clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider, logger }));
    await traced.rooms.create({ name: 'Meter', room_type: 'company_investment' });
    await traced.rooms.create({ name: 'Meter', room_type: 'company_investment' });
    expect(stored()).toBe(2);
    expect((await telemetry.spans()).filter((span) => span.name === 'rooms.create')).toHaveLength(2);
    expect(getMeter.mock.calls.length).toBeGreaterThanOrEqual(2);
    expect(lines).toHaveLength(1);
  });

  it('a tracer provider whose getTracer throws: every call is sent and succeeds, without a traceparent', async () => {
    const telemetry = createTelemetry();
    const tracerProvider: TracerProvider = { getTracer: boom('getTracer') };
    const { logger, lines } = warnings();
    const traced = client(clientTelemetry({ tracerProvider, meterProvider: telemetry.meterProvider, logger }));
    for (let index = 0; index < 3; index++) await traced.rooms.create({ name: 'Tracer', room_type: 'company_investment' });
    expect(sent).toHaveLength(3);
    expect(stored()).toBe(3);
    expect(lines).toEqual([expect.stringContaining('(Error: getTracer is down)')]);
    expect(sent.every(({ headers }) => headers.get('traceparent') === null)).toBe(true);
  });

  it('a propagator that throws: the call is sent and succeeds, its spans end', async () => {
    const telemetry = createTelemetry();
    const propagator: TextMapPropagator = { inject: boom('propagator'), extract: (parent) => parent, fields: () => [] };
    propagation.disable();
    propagation.setGlobalPropagator(propagator);
    const { logger, lines } = warnings();
    const traced = client(clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider, logger }));
    await expect(traced.rooms.create({ name: 'Propagator', room_type: 'company_investment' })).resolves.toMatchObject({ name: 'Propagator' });
    expect((await telemetry.spans()).map((span) => span.name).sort()).toEqual(['POST /api/v1/rooms', 'rooms.create']);
    expect(lines).toEqual([expect.stringContaining('(Error: propagator is down)')]);
  });

  it('a refused call with a throwing processor: the caller gets the service’s refusal (NotFoundError), not a hook’s failure', async () => {
    const { logger, lines } = warnings();
    const traced = client(clientTelemetry({ tracerProvider: new SdkTracerProvider({ spanProcessors: [throwingProcessor('onEnd')] }), logger }));
    const error = await traced.transactions.update(987_654, { linked_room_id: 1 }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(lines).toHaveLength(1);
  });

  it('with no logger, the one report goes to console.warn; a logger that throws changes nothing either', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const broken: ClientTelemetryOptions = { tracerProvider: new SdkTracerProvider({ spanProcessors: [throwingProcessor('onEnd')] }) };
    const traced = client(clientTelemetry(broken));
    await traced.rooms.create({ name: 'Console', room_type: 'company_investment' });
    await traced.rooms.create({ name: 'Console', room_type: 'company_investment' });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/^\[svc-sdk\] clientTelemetry: OpenTelemetry threw while tracing rooms\.create/);

    const loud = client(clientTelemetry({ ...broken, logger: { warn: boom('logger') } }));
    await expect(loud.rooms.create({ name: 'Loud', room_type: 'company_investment' })).resolves.toMatchObject({ name: 'Loud' });
    const rejecting = client(clientTelemetry({ ...broken, logger: { warn: () => Promise.reject(new Error('logger')) as unknown as void } }));
    await expect(rejecting.rooms.create({ name: 'Rejecting', room_type: 'company_investment' })).resolves.toMatchObject({ name: 'Rejecting' });
  });

  it('the report names the operation, never a credential from a path, and quotes no secret-looking value of the error', async () => {
    const { logger, lines } = warnings();
    const tracerProvider: TracerProvider = {
      getTracer: () => {
        throw new Error('cannot export with key vdr_leaked_0123456789');
      },
    };
    const traced = client(clientTelemetry({ tracerProvider, logger }));
    await traced.request({ method: 'POST', path: '/rooms?access_token=tok_in_path_0123', json: { name: 'Path', room_type: 'company_investment' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('tok_in_path_0123');
    expect(lines[0]).not.toContain('vdr_leaked_0123456789');
  });

  it('the report quotes a thrown non-Error as text, and at most 200 characters of what was thrown', async () => {
    const quoted = async (thrown: unknown): Promise<string> => {
      const { logger, lines } = warnings();
      const tracerProvider: TracerProvider = {
        getTracer: () => {
          throw thrown;
        },
      };
      await client(clientTelemetry({ tracerProvider, logger })).rooms.create({ name: 'Quoted', room_type: 'company_investment' });
      expect(lines).toHaveLength(1);
      return lines[0]!.slice(lines[0]!.indexOf('(') + 1, lines[0]!.lastIndexOf(')'));
    };
    expect(await quoted('a plain string')).toBe('a plain string');
    expect(await quoted(new RangeError('x'.repeat(500)))).toBe(`RangeError: ${'x'.repeat(188)}`);
  });

  it('a working pipeline is not reported, and records what it did before (a control for the tests above)', async () => {
    const telemetry = createTelemetry();
    const { logger, lines } = warnings();
    const traced = client(clientTelemetry({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider, logger }));
    await context.with(context.active(), () => traced.rooms.create({ name: 'Working', room_type: 'company_investment' }));
    expect(lines).toEqual([]);
    const points = await telemetry.points('http.client.request.duration');
    expect(points.map((point) => [point.attributes as Attributes, countOf(point)])).toEqual([[expect.objectContaining({ 'url.template': '/api/v1/rooms' }), 1]]);
    expect(sent[0]!.headers.get('traceparent')).toMatch(/^00-/);
  });
});
