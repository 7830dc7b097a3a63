// What the client and receiver telemetry share: the providers an app passes (or the global ones),
// read when the first call or delivery is observed, not when the hooks are made, so hooks made at
// import time still find an SDK registered later in the app's start-up.
import { metrics, trace, type Meter, type MeterProvider, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { VERSION } from '../core/version.js';

/** Where telemetry goes: by default the globally registered providers (`trace.setGlobalTracerProvider`, `metrics.setGlobalMeterProvider`). */
export interface TelemetryProviders {
  /** The tracer provider spans are made with. Default: the global one. */
  tracerProvider?: TracerProvider | undefined;
  /** The meter provider metrics are recorded with. Default: the global one. */
  meterProvider?: MeterProvider | undefined;
}

/** The instrumentation scope's name: spans and metrics say they come from the SDK. */
export const SCOPE = 'svc-sdk';

/** A tracer and a meter, got once, on first use. */
export function lazyInstruments<I>(options: TelemetryProviders | undefined, make: (meter: Meter) => I): () => { tracer: Tracer; instruments: I } {
  let made: { tracer: Tracer; instruments: I } | undefined;
  return () =>
    (made ??= {
      tracer: (options?.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE, VERSION),
      instruments: make((options?.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE, VERSION)),
    });
}

/** An epoch time in ms `ago` milliseconds before now, as span end times take it. */
export function msAgo(ago: number): number {
  return Date.now() - ago;
}
