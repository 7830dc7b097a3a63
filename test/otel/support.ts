// The OpenTelemetry SDK as an app would set it up, for the telemetry tests: an AsyncLocalStorage
// context manager and the W3C propagator (global, as an app registers them), a tracer provider
// exporting to memory, and a meter provider read on demand.
import { context, propagation, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';

/** A metric reader whose `collect()` a test calls when it wants the numbers. */
class OnDemandReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** Registers the global context manager and propagator once per test file. */
export function registerGlobals(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

/** A tracer provider exporting to memory and a meter provider read on demand. */
export function createTelemetry() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    /** The spans ended so far (the processor exports each one asynchronously: flushed first). */
    async spans(): Promise<ReadableSpan[]> {
      await tracerProvider.forceFlush();
      return exporter.getFinishedSpans();
    },
    reset: () => exporter.reset(),
    /** Every metric, collected now. */
    collect: () => reader.collect(),
    /** The data points of one metric, collected now. */
    async points(name: string): Promise<DataPoint<unknown>[]> {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).filter((metric) => metric.descriptor.name === name).flatMap((metric) => metric.dataPoints as DataPoint<unknown>[]);
    },
  };
}

/** Every string anywhere in the spans (names, attributes, status messages, events) and metric attributes. */
export function everyString(spans: readonly ReadableSpan[], points: readonly { attributes: Attributes }[]): string {
  const parts: unknown[] = [];
  for (const span of spans) {
    parts.push(span.name, span.attributes, span.status.message, span.events.map((event) => [event.name, event.attributes]));
  }
  for (const point of points) parts.push(point.attributes);
  return JSON.stringify(parts);
}

/** A histogram data point's count. */
export function countOf(point: DataPoint<unknown>): number {
  return (point.value as Histogram).count;
}

/** A histogram data point's sum. */
export function sumOf(point: DataPoint<unknown>): number {
  return (point.value as Histogram).sum ?? 0;
}
