// clientTelemetry(): client hooks that trace each call (a span named after the operation) and each
// of its attempts (an HTTP client span, semantic conventions v1.x stable attributes), inject the
// trace context into the request, and record the request duration and upload sizes.
//
// Which hook does what (see core/hooks.ts for when each runs):
//   beforeRequest  attempt 1 starts the call's span; each attempt starts its client span, injects `traceparent`
//   beforeRetry    ends the failed attempt's span when it ended (before the wait)
//   afterResponse  ends the last attempt's span and the call's
//   onError        ends the open attempt's span (if any) and the call's, with the error
// Nothing here sees the API key: beforeRequest's headers show it redacted, and no header is recorded.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Histogram, type Meter, type Span } from '@opentelemetry/api';
import type { CallInfo, ClientHooks } from '../core/hooks.js';
import { lazyInstruments, msAgo, type TelemetryProviders } from './shared.js';

/** Options of `clientTelemetry`. */
export interface ClientTelemetryOptions extends TelemetryProviders {
  /** Injects the trace context (`traceparent`, through the global propagator) into each request. Default `true`. */
  propagate?: boolean | undefined;
}

/** `/`, after an origin in a URL. */
const SLASH = 0x2f;

/** The semantic conventions' bucket boundaries for `http.client.request.duration`, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

interface ClientInstruments {
  duration: Histogram;
  bodySize: Histogram;
}

/** One call's open spans. */
interface CallSpans {
  call: Span;
  /** The context attempts start in: the caller's, with the call's span. */
  parent: Context;
  attempt: Span | undefined;
  attemptStarted: number;
  server: Server;
}

/** `server.address` and `server.port` of an origin. */
interface Server {
  address: string;
  port: number;
}

/**
 * Client hooks that trace every call with OpenTelemetry: a span per call named after its operation
 * (`rooms.create`), a client span per attempt with the HTTP semantic conventions' attributes,
 * `traceparent` sent with each request, and the metrics `http.client.request.duration` and
 * `http.client.request.body.size` (uploads). Pass them as a client's `hooks`; register your
 * OpenTelemetry SDK as usual. Never records a header, a body, or a secret-looking query value.
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
  const instruments = lazyInstruments(options, makeInstruments);
  // Origins seen, parsed once: every attempt needs its host and port. A client calls one origin, so
  // the last one is checked first, without cutting the origin out of the URL.
  const servers = new Map<string, Server>();
  let lastOrigin = '';
  let lastServer: Server | undefined;
  const serverOf = (url: string): Server => {
    if (lastServer && url.startsWith(lastOrigin) && url.charCodeAt(lastOrigin.length) === SLASH) return lastServer;
    const origin = url.slice(0, url.indexOf('/', url.indexOf('//') + 2) >>> 0);
    let server = servers.get(origin);
    if (!server) {
      const parsed = new URL(url);
      server = { address: parsed.hostname, port: Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80) };
      if (servers.size < 64) servers.set(origin, server);
    }
    lastOrigin = origin;
    lastServer = server;
    return server;
  };

  /** Ends the open attempt span: its status code or error, at `endTime`, and records its duration. */
  const endAttempt = (call: CallInfo, spans: CallSpans, status: number | undefined, errorType: string | undefined, endTime: number) => {
    const span = spans.attempt;
    if (!span) return;
    spans.attempt = undefined;
    const metricAttributes: Attributes = {
      'http.request.method': call.method,
      'server.address': spans.server.address,
      'server.port': spans.server.port,
      'url.template': call.urlTemplate,
    };
    if (status !== undefined) {
      span.setAttribute('http.response.status_code', status);
      metricAttributes['http.response.status_code'] = status;
    }
    if (errorType !== undefined) {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
      metricAttributes['error.type'] = errorType;
    }
    span.end(endTime);
    instruments().instruments.duration.record(Math.max(0, endTime - spans.attemptStarted) / 1000, metricAttributes);
  };

  return {
    beforeRequest({ call, attempt, url, headers }) {
      const { tracer, instruments: made } = instruments();
      let spans = open.get(call);
      if (!spans) {
        const span = tracer.startSpan(call.operation, { kind: SpanKind.INTERNAL, attributes: { 'svc.operation': call.operation } });
        spans = { call: span, parent: trace.setSpan(context.active(), span), attempt: undefined, attemptStarted: 0, server: serverOf(url) };
        open.set(call, spans);
      }
      const { server, parent } = spans;
      const attributes: Attributes = {
        'http.request.method': call.method,
        'server.address': server.address,
        'server.port': server.port,
        'url.full': safeUrl(url),
        'url.template': call.urlTemplate,
        'svc.operation': call.operation,
      };
      // The conventions set the resend count on resends only.
      if (attempt > 1) attributes['http.request.resend_count'] = attempt - 1;
      const span = tracer.startSpan(`${call.method} ${call.urlTemplate}`, { kind: SpanKind.CLIENT, attributes }, parent);
      spans.attempt = span;
      spans.attemptStarted = Date.now();
      const length = Number(headers['content-length']);
      if (length > 0) {
        span.setAttribute('http.request.body.size', length);
        made.bodySize.record(length, { 'http.request.method': call.method, 'url.template': call.urlTemplate, 'server.address': server.address });
      }
      if (propagate) propagation.inject(trace.setSpan(parent, span), headers);
    },

    beforeRetry({ call, error, delayMs }) {
      const spans = open.get(call);
      if (spans) endAttempt(call, spans, statusOf(error), errorTypeOf(error), msAgo(delayMs));
    },

    afterResponse({ call, response }) {
      const spans = open.get(call);
      if (!spans) return;
      open.delete(call);
      // A retried DELETE answered 404 is a success of the call, but its attempt's status is an error.
      endAttempt(call, spans, response.status, response.status >= 400 ? String(response.status) : undefined, Date.now());
      spans.call.end();
    },

    onError({ call, error }) {
      const spans = open.get(call);
      if (!spans) return;
      open.delete(call);
      const errorType = errorTypeOf(error);
      endAttempt(call, spans, statusOf(error), errorType, Date.now());
      spans.call.setAttribute('error.type', errorType);
      // The error's class and status only: its message may quote the service's answer.
      spans.call.setStatus({ code: SpanStatusCode.ERROR, message: error.name });
      spans.call.end();
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

/** The status of an `APIError`, else `undefined`. */
function statusOf(error: Error): number | undefined {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}

/** `error.type`: the HTTP status for an answer, else the error's class (`APITimeoutError`, `APIConnectionError`). */
function errorTypeOf(error: Error): string {
  const status = statusOf(error);
  return status !== undefined && status >= 400 ? String(status) : error.name;
}

// Query parameters whose values are redacted in `url.full`: anything named like a credential.
const SECRET_NAME = /key|token|secret|sig|pass|auth|credential|session|code/i;

/** `url.full` as the conventions ask: no user or password, and no secret-looking query value. */
export function safeUrl(url: string): string {
  const query = url.indexOf('?');
  const authorityEnd = url.indexOf('/', url.indexOf('//') + 2) >>> 0;
  // The common case, parsed no further: no user info, no query or none named like a secret.
  if (url.lastIndexOf('@', authorityEnd) === -1 && (query === -1 || !SECRET_NAME.test(url.slice(query)))) return url;
  const safe = new URL(url);
  if (safe.username) safe.username = 'REDACTED';
  if (safe.password) safe.password = 'REDACTED';
  const params = [...safe.searchParams.keys()];
  if (params.some((name) => SECRET_NAME.test(name))) {
    // Rebuilt by hand: URLSearchParams would re-encode the other values.
    safe.search = safe.search
      .slice(1)
      .split('&')
      .map((pair) => {
        const equals = pair.indexOf('=');
        const name = decodeName(equals === -1 ? pair : pair.slice(0, equals));
        return SECRET_NAME.test(name) && equals !== -1 ? `${pair.slice(0, equals)}=REDACTED` : pair;
      })
      .join('&');
  }
  return safe.href;
}

/** A query parameter's name, decoded; a malformed escape is left as written. */
function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
