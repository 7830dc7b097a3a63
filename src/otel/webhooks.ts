// webhookTelemetry(): receiver hooks that trace each delivery (a span from its arrival to its answer)
// and count deliveries by outcome. Attributes come from the hooks' outcome and the event's envelope
// only (kind, delivery id): never the secret, the signature header, the body or the event's data.
import { context, SpanKind, SpanStatusCode, type Attributes, type Counter, type Histogram, type Meter, type Span } from '@opentelemetry/api';
import type { DeliveryInfo, WebhookHooks } from '../webhooks/types.js';
import { lazyInstruments, type TelemetryProviders } from './shared.js';

/** Options of `webhookTelemetry`. */
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
  const instruments = lazyInstruments(options, makeInstruments);

  return {
    onReceive(delivery) {
      const { tracer } = instruments();
      open.set(delivery, tracer.startSpan('webhook delivery', { kind: SpanKind.CONSUMER }, context.active()));
    },

    onOutcome({ delivery, outcome, status, reason, dedupe, failure, durationMs }) {
      const span = open.get(delivery);
      open.delete(delivery);
      const event = delivery.event;
      const attributes: Attributes = { 'svc.webhook.outcome': outcome, 'http.response.status_code': status };
      if (event) {
        attributes['svc.webhook.event'] = event.event;
        attributes['svc.webhook.delivery_id'] = event.delivery_id;
      }
      // What the dedupe store said: a delivery that was processed (or failed) was new to it.
      const seen = dedupe ?? (outcome === 'processed' || outcome === 'stored' || (outcome === 'failed' && (failure === 'handler_failed' || failure === 'inbox_failed')) ? 'new' : undefined);
      if (seen) attributes['svc.webhook.dedupe'] = seen;
      const errorType = reason ?? failure;
      if (errorType) attributes['error.type'] = errorType;
      const metricAttributes: Attributes = { 'svc.webhook.outcome': outcome };
      if (event) metricAttributes['svc.webhook.event'] = event.event;
      if (errorType) metricAttributes['error.type'] = errorType;
      const { instruments: made } = instruments();
      made.deliveries.add(1, metricAttributes);
      made.duration.record(durationMs / 1000, metricAttributes);
      if (!span) return;
      if (event) span.updateName(`webhook ${event.event}`);
      span.setAttributes(attributes);
      if (outcome === 'refused' || outcome === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
      span.end();
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
