import * as z from 'zod/mini';
import type { EventKind } from '../webhooks/event-kinds.js';
import { parseUrl } from '../shared/parse-url.js';
import { requiredString } from './common.js';

const eventTypes = z.nullable(
  z.array(requiredString('event_types[]', "an event kind such as 'document.uploaded'") as z.ZodMiniType<EventKind, EventKind>, {
    error: 'event_types is required: pass an array of event kinds, or null to receive every kind',
  }),
);

/**
 * A receiver URL the service may deliver to: https (the spec's rule: deliveries carry signed
 * payloads), or http to this machine's loopback for local development.
 */
export function isReceiverUrl(text: string): boolean {
  const url = parseUrl(text);
  if (url?.protocol === 'https:') return true;
  if (url?.protocol !== 'http:') return false;
  const host = url.hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** What a receiver URL must be, with an example (the client's and the emulator's message). */
export const RECEIVER_URL_ERROR =
  'url must be an https:// URL of your receiver, such as https://example.com/webhooks (http:// only to localhost, 127.0.0.1 or [::1])';
const webhookUrl = z.string({ error: RECEIVER_URL_ERROR }).check(z.refine(isReceiverUrl, { error: RECEIVER_URL_ERROR }));

/** Body of `webhooks.create`; extra fields are sent as given. */
export const WebhookCreateParamsSchema = z.looseObject({
  url: webhookUrl,
  name: requiredString('name', 'a label for the endpoint'),
  event_types: eventTypes,
});

/** Body of `webhooks.update`: any of the create fields. */
export const WebhookUpdateParamsSchema = z.looseObject({
  url: z.optional(webhookUrl),
  name: z.optional(requiredString('name', 'a label for the endpoint')),
  event_types: z.optional(eventTypes),
});

/** The registration response: the only time `secret` is shown. Not enveloped. */
export const WebhookCreatedSchema = z.looseObject({
  id: z.number(),
  secret: z.string(),
  event_types: z.nullable(z.array(z.string() as z.ZodMiniType<EventKind>)),
});

/** A registered endpoint as listed or retrieved: never its secret. Unknown fields are kept. */
export const WebhookEndpointSchema = z.looseObject({
  id: z.number(),
  url: z.optional(z.string()),
  name: z.optional(z.string()),
  event_types: z.optional(z.nullable(z.array(z.string() as z.ZodMiniType<EventKind>))),
  failure_count: z.optional(z.number()),
});

/** A list of endpoints (the core has already taken it out of a `{ results }` page, see `CoreRequest.page`). */
export const WebhookEndpointListSchema = z.array(WebhookEndpointSchema);

/** The answer of `webhooks.rotateSecret`: the new secret, shown once. */
export const WebhookSecretSchema = z.looseObject({ secret: z.string() });

/** Body of `webhooks.create`. @interface */
export type WebhookCreateParams = z.input<typeof WebhookCreateParamsSchema>;
/** Body of `webhooks.update`. @interface */
export type WebhookUpdateParams = z.input<typeof WebhookUpdateParamsSchema>;
/** A new registration with its signing secret (store it: it is never shown again). @interface */
export type WebhookCreated = z.output<typeof WebhookCreatedSchema>;
/** A registered webhook endpoint. @interface */
export type WebhookEndpoint = z.output<typeof WebhookEndpointSchema>;
/** A freshly rotated signing secret. @interface */
export type WebhookSecret = z.output<typeof WebhookSecretSchema>;
