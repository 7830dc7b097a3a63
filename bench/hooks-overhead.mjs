// What hooks cost per request (issue 26): `client.rooms.create` on loopback, the server in its own
// process, with no hooks, with one no-op hook, and with `clientTelemetry()` recording spans to an
// in-memory exporter (through the batch processor) and the duration histogram to a metric reader (an app's OpenTelemetry set-up:
// AsyncLocalStorage context, W3C propagator), in the same interleaved rounds. Raw fetch is a row too,
// so "no hooks" can be read against today's per-request figure.
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { Client } from 'svc-sdk';
import { clientTelemetry } from 'svc-sdk/otel';
import { fixed, interleave, table, times, verdict } from './lib/stats.mjs';
import { startLoopbackServer } from './lib/spawn-server.mjs';

const API_KEY = 'vdr_bench_key';
const params = { name: 'Bench room', room_type: 'company_investment' };
/** The bound: telemetry at most 5 % over no hooks. */
const TELEMETRY_TARGET = 1.05;

/** A metric reader that is never read: the histogram is recorded, as it would be between exports. */
class IdleReader extends MetricReader {
  async onShutdown() {}
  async onForceFlush() {}
}

function runner(call, concurrency) {
  return async (operations) => {
    let next = 0;
    const worker = async () => {
      while (next++ < operations) await call();
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
}

export async function benchHooksOverhead({ quick = false } = {}) {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // The batch processor, as the OpenTelemetry docs advise for production (the simple one exports each span on its own).
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter, maxQueueSize: 65_536 })] });
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  const server = await startLoopbackServer();
  const results = [];
  try {
    const url = `${server.url}/api/v1/rooms`;
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', accept: 'application/json' };
    const calls = {
      ...sdkCalls({ baseUrl: server.url }, tracerProvider, meterProvider),
      'raw fetch': async () => {
        const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(params) });
        return (await response.json()).data;
      },
    };
    for (const concurrency of [1, 32]) {
      const cases = Object.entries(calls).map(([name, call]) => ({ name, run: runner(call, concurrency) }));
      for (const { run } of cases) await run(300); // open the connections, warm the JIT
      const measured = await interleave(
        cases.map(({ name, run }) => ({
          name,
          // The exporter keeps every span: emptied before each sample, alike for every case.
          run: async (operations) => {
            exporter.reset();
            await run(operations);
          },
        })),
        { rounds: quick ? 12 : 60, operations: concurrency === 1 ? 60 : 200, baseline: 'no hooks' },
      );
      for (const [name, { micros, ratio }] of measured) results.push({ concurrency, name, micros, ratio });
    }
  } finally {
    server.stop();
  }
  // The SDK's own CPU per call, without the network: a fetch that answers at once. What hooks add
  // shows here in µs, steadier than on loopback, where a busy machine moves every row by more.
  const inProcess = [];
  const answer = JSON.stringify({ success: true, data: { id: 1, ...params } });
  const instant = async () => new Response(answer, { status: 201, headers: { 'content-type': 'application/json' } });
  const local = Object.entries(sdkCalls({ baseUrl: 'http://127.0.0.1:9', fetch: instant }, tracerProvider, meterProvider)).map(([name, call]) => ({
    name,
    run: async (operations) => {
      exporter.reset();
      for (let index = 0; index < operations; index++) await call();
    },
  }));
  for (const { run } of local) await run(2000);
  const measured = await interleave(local, { rounds: quick ? 12 : 40, operations: 500, baseline: 'no hooks' });
  for (const [name, { micros }] of measured) inProcess.push({ name, micros, added: micros - measured.get('no hooks').micros });
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  return { cases: results, inProcess };
}

/** The three clients compared, over the same transport. */
function sdkCalls(transport, tracerProvider, meterProvider) {
  const plain = new Client({ apiKey: API_KEY, ...transport });
  const noop = new Client({ apiKey: API_KEY, ...transport, hooks: { beforeRequest: () => {} } });
  const traced = new Client({ apiKey: API_KEY, ...transport, hooks: clientTelemetry({ tracerProvider, meterProvider }) });
  return {
    'no hooks': () => plain.rooms.create(params),
    'one no-op hook (beforeRequest)': () => noop.rooms.create(params),
    'clientTelemetry(), in-memory exporter': () => traced.rooms.create(params),
  };
}

/** The rows of the summary: figure, target, measured, peers, whether the target is met. */
export function summarizeHooksOverhead({ cases }) {
  const find = (concurrency, prefix) => cases.find((row) => row.concurrency === concurrency && row.name.startsWith(prefix));
  return [1, 32].map((concurrency) => {
    const telemetry = find(concurrency, 'clientTelemetry');
    const noop = find(concurrency, 'one no-op');
    const raw = find(concurrency, 'raw fetch');
    return [
      `rooms.create with clientTelemetry() vs no hooks, ${concurrency === 1 ? 'sequential' : 'concurrency 32'}`,
      `≤ ${TELEMETRY_TARGET}×`,
      `${times(telemetry.ratio)} (${fixed(telemetry.micros, 0)} µs vs ${fixed(find(concurrency, 'no hooks').micros, 0)} µs); one no-op hook ${times(noop.ratio)}`,
      `no hooks vs raw fetch ${times(1 / raw.ratio)}`,
      verdict(telemetry.ratio <= TELEMETRY_TARGET),
    ];
  });
}

export function renderHooksOverhead(results) {
  const detail = results.cases.map(({ concurrency, name, micros, ratio }) => [String(concurrency), name, fixed(micros, 1), times(ratio)]);
  return [
    table(['figure', 'target', 'measured', 'peers', 'target met'], summarizeHooksOverhead(results)),
    '',
    'Every case (µs per request is wall time divided by requests; ratios to "no hooks" in the same round):',
    '',
    table(['concurrency', 'call', 'µs / request (median)', 'vs no hooks'], detail),
    '',
    'The SDK\'s own CPU per call, in process, with a `fetch` that answers at once (no network): what the hooks add, in µs.',
    '',
    table(['call', 'µs / call (median)', 'added to no hooks (µs)'], results.inProcess.map(({ name, micros, added }) => [name, fixed(micros, 1), fixed(added, 1)])),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderHooksOverhead(await benchHooksOverhead({ quick: process.argv.includes('--quick') })));
}
