/**
 * `svc-sdk/otel`: OpenTelemetry traces and metrics for the client's calls and the webhook
 * receiver's deliveries, as hooks. Needs the optional peer `@opentelemetry/api`; no other entry
 * of svc-sdk loads it.
 *
 * @module svc-sdk/otel
 */
export { clientTelemetry, type ClientTelemetryOptions } from './client.js';
export { webhookTelemetry, type WebhookTelemetryOptions } from './webhooks.js';
export type { TelemetryProviders } from './shared.js';
