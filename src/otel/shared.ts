// What the client and receiver telemetry share: the providers an app passes (or the global ones),
// read when the first call or delivery is observed, not when the hooks are made, so hooks made at
// import time still find an SDK registered later in the app's start-up; and the one report of a
// failing OpenTelemetry pipeline (telemetry observes, it never decides: its failures are not the call's).
import { metrics, trace, type Meter, type MeterProvider, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { Logger } from '../core/logger.js';
import { VERSION } from '../core/version.js';
import { redactSecretValues } from '../shared/redact.js';

/** Where telemetry goes: by default the globally registered providers (`trace.setGlobalTracerProvider`, `metrics.setGlobalMeterProvider`). */
export interface TelemetryProviders {
  /** The tracer provider spans are made with. Default: the global one. */
  tracerProvider?: TracerProvider | undefined;
  /** The meter provider metrics are recorded with. Default: the global one. */
  meterProvider?: MeterProvider | undefined;
  /**
   * Where a failure of the OpenTelemetry pipeline (a tracer, span processor, exporter, meter or
   * propagator that throws) is reported, once: pass the logger you give the client. Default `console`.
   * The call or delivery it happened in goes on unchanged.
   */
  logger?: Pick<Logger, 'warn'> | undefined;
}

/** The instrumentation scope's name: spans and metrics say they come from the SDK. */
export const SCOPE = 'svc-sdk';

/**
 * The tracer, got on first use. A provider whose `getTracer` throws is asked again next time (and
 * the throw reaches the hook's guard): a pipeline that comes up later is still used.
 */
export function lazyTracer(options: TelemetryProviders | undefined): () => Tracer {
  let tracer: Tracer | undefined;
  return () => (tracer ??= (options?.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE, VERSION));
}

/** The instruments `make` creates with the meter, got on first use (asked again while that throws). Apart from the tracer: broken metrics leave the traces working. */
export function lazyInstruments<I>(options: TelemetryProviders | undefined, make: (meter: Meter) => I): () => I {
  let made: I | undefined;
  return () => (made ??= make((options?.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, VERSION)));
}

/**
 * What a telemetry hook does with an OpenTelemetry failure it caught: the first one is reported
 * through `logger.warn` (console's by default), the others are not (a broken exporter would
 * otherwise write a line per request). Never throws: a logger that throws, or returns a rejected
 * promise, is ignored as the client ignores it.
 */
export function reportOnce(options: TelemetryProviders | undefined, hooks: string): (error: unknown, during: string) => void {
  let reported = false;
  return (error, during) => {
    if (reported) return;
    reported = true;
    const logger = options?.logger ?? console;
    // Its name and message only, and those cut and cleaned: the error is the pipeline's, its text unknown.
    const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const message =
      `[svc-sdk] ${hooks}: OpenTelemetry threw while tracing ${during} (${redactSecretValues(cause.slice(0, 200))}); ` +
      'it went on unchanged, without that telemetry; later failures are not reported';
    try {
      void Promise.resolve<unknown>(logger.warn(message)).catch(ignore);
    } catch {
      // The logger's own failure is nobody's outcome either.
    }
  };
}

function ignore(): void {}

/** An epoch time in ms `ago` milliseconds before now, as span end times take it. */
export function msAgo(ago: number): number {
  return Date.now() - ago;
}
