// clientTelemetry(): client hooks that trace each call (a span named after the operation) and each
// of its attempts (an HTTP client span, semantic conventions v1.x stable attributes), inject the
// trace context into the request, and record the request duration and upload sizes.
//
// Which hook does what (see core/hooks.ts for when each runs):
//   beforeRequest  attempt 1 starts the call's span; each attempt starts its client span, injects `traceparent`
//   beforeRetry    ends the failed attempt's span when it ended (before the wait)
//   afterResponse  ends the last attempt's span and the call's
//   onError        ends the open attempt's span (if any) and the call's, with the error
// Telemetry observes, it never decides: a hook that throws fails its call, so each hook's body runs
// in a guard (a try/catch, no promise), and an OpenTelemetry failure (a tracer, processor, exporter,
// meter or propagator that throws) is reported once and costs the call nothing but its telemetry.
// Nothing here sees the API key: beforeRequest's headers show it redacted, and no header is recorded.
// What a span or a metric shows of a URL or an operation goes through the one redaction rule (shared/redact.ts).
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Histogram, type Meter, type Span } from '@opentelemetry/api';
import type { CallInfo, ClientHooks } from '../core/hooks.js';
import { redactUrl, templatePath } from '../shared/redact.js';
import { lazyInstruments, lazyTracer, msAgo, reportOnce, type TelemetryProviders } from './shared.js';

/** Options of `clientTelemetry`. */
export interface ClientTelemetryOptions extends TelemetryProviders {
  /** Injects the trace context (`traceparent`, through the global propagator) into each request. Default `true`. */
  propagate?: boolean | undefined;
}

/** The semantic conventions' bucket boundaries for `http.client.request.duration`, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

interface ClientInstruments {
  duration: Histogram;
  bodySize: Histogram;
}

/** One call's open spans, and the names its spans and metrics show. */
interface CallSpans {
  call: Span;
  /** The context attempts start in: the caller's, with the call's span. */
  parent: Context;
  attempt: Span | undefined;
  attemptStarted: number;
  server: Server;
  /** The call span's name and `svc.operation`: the operation, never a path's query or ids (`templatePath`). */
  operation: string;
  /** `url.template`: the call's template, with any id, uuid or token left in it as `{id}`. */
  template: string;
}

/** `server.address` and `server.port` of an origin. */
interface Server {
  address: string;
  port: number;
}

/** The marker `url.full` shows for a credential: the semantic conventions' `REDACTED`. */
const URL_MARKER = 'REDACTED';

/**
 * Client hooks that trace every call with OpenTelemetry: a span per call named after its operation
 * (`rooms.create`), a client span per attempt with the HTTP semantic conventions' attributes,
 * `traceparent` sent with each request, and the metrics `http.client.request.duration` and
 * `http.client.request.body.size` (uploads). Pass them as a client's `hooks`; register your
 * OpenTelemetry SDK as usual. Never records a header, a body, or a credential in a URL. Never
 * changes a call's outcome: an OpenTelemetry pipeline that throws is reported once through
 * `options.logger` (console's `warn` by default), and the call goes on without its telemetry.
 *
 * @param options The tracer and meter providers (the global ones by default), and whether to `propagate` the trace context.
 *
 * @example
 * ```ts
 * import { Client } from 'svc-sdk';
 * import { clientTelemetry } from 'svc-sdk/otel';
 *
 * const client = new Client({ apiKey: 'vdr_example', baseUrl: 'https://api.example.com', hooks: clientTelemetry() });
 * ```
 */
export function clientTelemetry(options?: ClientTelemetryOptions): ClientHooks {
  const propagate = options?.propagate ?? true;
  const open = new WeakMap<CallInfo, CallSpans>();
  const tracer = lazyTracer(options);
  const instruments = lazyInstruments(options, makeInstruments);
  const report = reportOnce(options, 'clientTelemetry');
  /**
   * Ends the open attempt span: its status code or error, at `endTime`, and records its duration.
   * The duration is recorded even when the span's end throws (a failing exporter), and the reverse.
   */
  const endAttempt = (call: CallInfo, spans: CallSpans, status: number | undefined, errorType: string | undefined, endTime: number) => {
    const span = spans.attempt;
    if (!span) return;
    spans.attempt = undefined;
    const metricAttributes: Attributes = {
      'http.request.method': call.method,
      'server.address': spans.server.address,
      'server.port': spans.server.port,
      'url.template': spans.template,
    };
    try {
      // Each value goes to the metric's attributes first: a span call that throws leaves them whole.
      if (status !== undefined) {
        metricAttributes['http.response.status_code'] = status;
        span.setAttribute('http.response.status_code', status);
      }
      if (errorType !== undefined) {
        metricAttributes['error.type'] = errorType;
        span.setAttribute('error.type', errorType);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end(endTime);
    } finally {
      instruments().duration.record(Math.max(0, endTime - spans.attemptStarted) / 1000, metricAttributes);
    }
  };

  /** Ends the call: its open attempt (with its status and error type), then its own span, which ends even when the attempt's end threw. */
  const endCall = (call: CallInfo, spans: CallSpans, status: number | undefined, errorType: string | undefined, error: Error | undefined) => {
    try {
      endAttempt(call, spans, status, errorType, Date.now());
    } finally {
      if (error) {
        spans.call.setAttribute('error.type', errorTypeOf(error));
        // The error's class and status only: its message may quote the service's answer.
        spans.call.setStatus({ code: SpanStatusCode.ERROR, message: error.name });
      }
      spans.call.end();
    }
  };

  /** Ends a call's spans, once (its answer, or its failure): what that throws is reported, never thrown into the call. */
  const close = (call: CallInfo, end: (spans: CallSpans) => void) => {
    const spans = open.get(call);
    if (!spans) return;
    open.delete(call);
    try {
      end(spans);
    } catch (error) {
      report(error, templatePath(call.operation));
    }
  };

  return {
    beforeRequest({ call, attempt, url, headers }) {
      let spans = open.get(call);
      try {
        if (!spans) {
          // Named after the operation, never after a path with its query: one name per operation, no credential in it.
          const operation = templatePath(call.operation);
          const span = tracer().startSpan(operation, { kind: SpanKind.INTERNAL, attributes: { 'svc.operation': operation } });
          spans = {
            call: span,
            parent: trace.setSpan(context.active(), span),
            attempt: undefined,
            attemptStarted: 0,
            server: serverOf(url),
            operation,
            template: templatePath(call.urlTemplate),
          };
          open.set(call, spans);
        }
        const { server, parent, operation, template } = spans;
        const attributes: Attributes = {
          'http.request.method': call.method,
          'server.address': server.address,
          'server.port': server.port,
          'url.full': redactUrl(url, URL_MARKER),
          'url.template': template,
          'svc.operation': operation,
        };
        // The conventions set the resend count on resends only.
        if (attempt > 1) attributes['http.request.resend_count'] = attempt - 1;
        const span = tracer().startSpan(`${call.method} ${template}`, { kind: SpanKind.CLIENT, attributes }, parent);
        spans.attempt = span;
        spans.attemptStarted = Date.now();
        if (propagate) propagation.inject(trace.setSpan(parent, span), headers);
        // NaN when there is no body, or none the SDK knows the size of.
        const length = Number(headers['content-length']);
        if (length) {
          span.setAttribute('http.request.body.size', length);
          instruments().bodySize.record(length, { 'http.request.method': call.method, 'url.template': template, 'server.address': server.address });
        }
      } catch (error) {
        report(error, templatePath(call.operation));
      }
    },

    beforeRetry({ call, error, delayMs }) {
      const spans = open.get(call);
      if (!spans) return;
      try {
        endAttempt(call, spans, statusOf(error), errorTypeOf(error), msAgo(delayMs));
      } catch (failure) {
        report(failure, templatePath(call.operation));
      }
    },

    afterResponse({ call, response }) {
      // A retried DELETE answered 404 is a success of the call, but its attempt's status is an error.
      close(call, (spans) => endCall(call, spans, response.status, response.ok ? undefined : String(response.status), undefined));
    },

    onError({ call, error }) {
      close(call, (spans) => endCall(call, spans, statusOf(error), errorTypeOf(error), error));
    },
  };
}

function makeInstruments(meter: Meter): ClientInstruments {
  return {
    duration: meter.createHistogram('http.client.request.duration', {
      description: 'Duration of HTTP client requests (each attempt).',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    bodySize: meter.createHistogram('http.client.request.body.size', {
      description: 'Size of HTTP client request bodies: uploads (those the SDK knows the size of).',
      unit: 'By',
    }),
  };
}

/**
 * `server.address` and `server.port` of a request's URL, read from its authority without a parse
 * (a URL parse per call cost more than the rest of a span's attributes): the URL is the runtime's
 * own (`Request.url`), so its host is normalized, a default port is left out, and no user info is
 * left (a base URL with one is refused). An IPv6 host (`[::1]`) holds colons of its own: a port
 * follows its closing bracket.
 */
function serverOf(url: string): Server {
  const start = url.indexOf('//') + 2;
  const authority = url.slice(start, url.indexOf('/', start) >>> 0);
  const colon = authority.lastIndexOf(':');
  if (colon > authority.lastIndexOf(']')) return { address: authority.slice(0, colon), port: Number(authority.slice(colon + 1)) };
  return { address: authority, port: url.startsWith('https:') ? 443 : 80 };
}

/** The status of an `APIError` (the core's errors have a numeric one or none). */
function statusOf(error: Error): number | undefined {
  return (error as { status?: number }).status;
}

/** `error.type`: the HTTP status for an answer, else the error's class (`APITimeoutError`, `APIConnectionError`). */
function errorTypeOf(error: Error): string {
  const status = statusOf(error) ?? 0;
  return status >= 400 ? String(status) : error.name;
}
