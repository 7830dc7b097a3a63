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
export const WebhookSecretSchema = z.looseObject({
  secret: z.string(),
});

/** Body of `webhooks.create`. */
export interface WebhookCreateParams {
  /** Your receiver's https URL (http only to localhost, 127.0.0.1 or [::1]). */
  url: string;
  /** A label for the endpoint, such as `'uploads'`. */
  name: string;
  /** The event kinds to receive, such as `['document.uploaded']`, or `null` for every kind. */
  event_types: EventKind[] | null;
}
/** Body of `webhooks.update`: any of the create fields. */
export interface WebhookUpdateParams {
  /** A new receiver URL (https, or http to loopback). */
  url?: string | undefined;
  /** A new label. */
  name?: string | undefined;
  /** The event kinds to receive from now on, or `null` for every kind. */
  event_types?: EventKind[] | null | undefined;
}
/** A new registration with its signing secret (store it: it is never shown again). */
export interface WebhookCreated {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** The endpoint's id, for `update`, `delete`, `rotateSecret` and `ping`. */
  id: number;
  /** The signing secret of its deliveries: shown this once, store it to verify them. */
  secret: string;
  /** The event kinds it receives, or `null` for every kind. */
  event_types: EventKind[] | null;
}
/** A registered webhook endpoint. */
export interface WebhookEndpoint {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** The endpoint's id. */
  id: number;
  /** The receiver URL deliveries go to. */
  url?: string | undefined;
  /** The endpoint's label. */
  name?: string | undefined;
  /** The event kinds it receives, or `null` for every kind. */
  event_types?: EventKind[] | null | undefined;
  /** How many deliveries failed every attempt. */
  failure_count?: number | undefined;
}
/** A freshly rotated signing secret. */
export interface WebhookSecret {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** The new signing secret, shown this once: deliveries are signed with it from now on. */
  secret: string;
}
