// webhookTelemetry(): receiver hooks that trace each delivery (a span from its arrival to its answer)
// and count deliveries by outcome. Attributes come from the hooks' outcome and the event's envelope
// only (kind, delivery id): never the secret, the signature header, the body or the event's data.
// The receiver ignores what a hook throws, but a throw halfway would lose the rest of the telemetry
// (a failing counter leaving the span open) and go unheard: each hook guards its own work, spans and
// metrics apart, and reports the first OpenTelemetry failure once.
import { context, SpanKind, SpanStatusCode, type Attributes, type Counter, type Histogram, type Meter, type Span } from '@opentelemetry/api';
import type { DeliveryInfo, WebhookHooks } from '../webhooks/types.js';
import { lazyInstruments, lazyTracer, reportOnce, type TelemetryProviders } from './shared.js';

/** Options of `webhookTelemetry`: the providers, and the logger a failing pipeline is reported to. */
export type WebhookTelemetryOptions = TelemetryProviders;

interface ReceiverInstruments {
  deliveries: Counter;
  duration: Histogram;
}

/**
 * Receiver hooks that trace every delivery with OpenTelemetry: a span per delivery (`webhook
 * <event kind>`, or `webhook delivery` when refused before its kind was known) with its delivery
 * id, outcome, refusal reason and dedupe result, and the metrics `svc.webhook.deliveries` (by
 * outcome) and `svc.webhook.delivery.duration`. Pass them as `createWebhookHandler`'s `hooks`.
 * An OpenTelemetry pipeline that throws changes no answer: it is reported once through
 * `options.logger` (console's `warn` by default), and the span and the metrics fail apart.
 *
 * @param options The tracer and meter providers (the global ones by default).
 *
 * @example
 * ```ts
 * import { createWebhookHandler } from 'svc-sdk/webhooks';
 * import { webhookTelemetry } from 'svc-sdk/otel';
 *
 * export const POST = createWebhookHandler({
 *   secret: process.env.SVC_WEBHOOK_SECRET!,
 *   on: async (event) => console.log(event.event),
 *   hooks: webhookTelemetry(),
 * });
 * ```
 */
export function webhookTelemetry(options?: WebhookTelemetryOptions): WebhookHooks {
  const open = new WeakMap<DeliveryInfo, Span>();
  const tracer = lazyTracer(options);
  const instruments = lazyInstruments(options, makeInstruments);
  const report = reportOnce(options, 'webhookTelemetry');

  return {
    onReceive(delivery) {
      try {
        open.set(delivery, tracer().startSpan('webhook delivery', { kind: SpanKind.CONSUMER }, context.active()));
      } catch (error) {
        report(error, 'a delivery');
      }
    },

    onOutcome({ delivery, outcome, status, reason, dedupe, failure, durationMs }) {
      const span = open.get(delivery);
      open.delete(delivery);
      const event = delivery.event;
      const errorType = reason ?? failure;
      try {
        const metricAttributes: Attributes = { 'svc.webhook.outcome': outcome };
        if (event) metricAttributes['svc.webhook.event'] = event.event;
        if (errorType) metricAttributes['error.type'] = errorType;
        const made = instruments();
        made.deliveries.add(1, metricAttributes);
        made.duration.record(durationMs / 1000, metricAttributes);
      } catch (error) {
        report(error, event ? `delivery ${event.delivery_id}` : 'a delivery');
      }
      if (!span) return;
      try {
        const attributes: Attributes = { 'svc.webhook.outcome': outcome, 'http.response.status_code': status };
        if (event) {
          attributes['svc.webhook.event'] = event.event;
          attributes['svc.webhook.delivery_id'] = event.delivery_id;
        }
        // What the dedupe store said: a delivery that was processed (or failed) was new to it.
        const seen = dedupe ?? (outcome === 'processed' || outcome === 'stored' || failure === 'handler_failed' || failure === 'inbox_failed' ? 'new' : undefined);
        if (seen) attributes['svc.webhook.dedupe'] = seen;
        if (errorType) attributes['error.type'] = errorType;
        if (event) span.updateName(`webhook ${event.event}`);
        span.setAttributes(attributes);
        if (outcome === 'refused' || outcome === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
        span.end();
      } catch (error) {
        report(error, event ? `delivery ${event.delivery_id}` : 'a delivery');
      }
    },
  };
}

function makeInstruments(meter: Meter): ReceiverInstruments {
  return {
    deliveries: meter.createCounter('svc.webhook.deliveries', {
      description: 'Webhook deliveries received, by outcome (processed, stored in the inbox, duplicate, refused, failed).',
      unit: '{delivery}',
    }),
    duration: meter.createHistogram('svc.webhook.delivery.duration', {
      description: 'Time from a delivery’s arrival to its answer.',
      unit: 's',
    }),
  };
}
