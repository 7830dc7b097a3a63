// `svc-sdk/webhooks` for every runtime (Web Crypto). The Node entry (index.node.ts) exports the
// same names over node:crypto; only the HMAC primitives differ, the rest is shared modules.
import { createHandlerWith, type WebhookHandler, type WebhookHandlerOptions } from './handler.js';
import { hmacSign, hmacVerify } from './hmac-web.js';
import type { WebhookEvent } from './events.js';
import { signWith } from './sign.js';
import type { RawBody, SignatureHeader, SigningSecret } from './signature.js';
import { verifyWebhookWith } from './verify-webhook.js';
import { verifyBytesWith, verifyWith } from './verify.js';

/**
 * Whether `header` (`X-Svc-Signature`) is the HMAC-SHA256 of the exact raw body under the secret
 * (or any of several, during a rotation). Compares in constant time; junk input gives `false`, never a throw.
 *
 * @example
 * ```ts
 * if (!(await verifySignature(rawBody, req.headers['x-svc-signature'], process.env.SVC_WEBHOOK_SECRET!))) return res.sendStatus(401);
 * ```
 */
export function verifySignature(rawBody: RawBody, header: SignatureHeader, secret: SigningSecret): Promise<boolean> {
  return verifyWith(hmacVerify, rawBody, header, secret);
}

/**
 * Verifies the signature, then parses the body: the typed event, or `WebhookVerificationError`
 * (bad or missing signature: answer 401) or `WebhookPayloadError` (not a delivery envelope: 400).
 *
 * @example
 * ```ts
 * const event = await verifyWebhook(req.body, req.get('x-svc-signature'), secret); // req.body from express.raw()
 * if (event.event === 'document.uploaded') console.log(event.data.filename);
 * ```
 */
export function verifyWebhook(rawBody: RawBody, header: SignatureHeader, secret: SigningSecret): Promise<WebhookEvent> {
  return verifyWebhookWith(hmacVerify, rawBody, header, secret);
}

/**
 * The `X-Svc-Signature` value the service would send for this body: `'sha256=<hex>'`. For tests.
 *
 * @example
 * ```ts
 * const request = new Request(url, { method: 'POST', body, headers: { 'x-svc-signature': await signPayload(body, secret) } });
 * ```
 */
export function signPayload(rawBody: RawBody, secret: string): Promise<string> {
  return signWith(hmacSign, rawBody, secret);
}

/**
 * A fetch-standard `(request) => Promise<Response>` webhook receiver: verifies, parses, deduplicates
 * by `delivery_id` and calls `on`; answers 200, or 401/400/405/409/500 with a JSON `{ error }`.
 *
 * @example
 * ```ts
 * // app/api/webhooks/route.ts (Next.js); the same function serves Hono, Workers, Bun and Deno.
 * export const POST = createWebhookHandler({ secret: process.env.SVC_WEBHOOK_SECRET!, on: async (event) => {
 *   if (event.event === 'document.uploaded') await index(event.data.document_id);
 * } });
 * ```
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  return createHandlerWith((body, header, secret) => verifyBytesWith(hmacVerify, body, header, secret), options);
}

// Everything below is shared with the other entry, so classes are the same and instanceof holds.
export { WebhookVerificationError, WebhookPayloadError } from './errors.js';
export type {
  WebhookEvent,
  WebhookEventOf,
  WebhookEventDataMap,
  WebhookEnvelope,
  UnknownWebhookEvent,
  UnknownEventKind,
  DocumentUploadedData,
  CreditLowData,
  CreditExhaustedData,
  CreditGrantedData,
  ActionApprovalRequiredData,
  ActionApprovedData,
  ActionRejectedData,
  ActionExpiredData,
  JobCompletedData,
  JobFailedData,
  ModuleToggledData,
} from './events.js';
export type { RawBody, SignatureHeader, SigningSecret } from './signature.js';
export type { WebhookHandler, WebhookHandlerOptions } from './handler.js';
export type { DedupeStore, ClaimResult } from './dedupe.js';
export { createMemoryDedupeStore, type MemoryDedupeStoreOptions } from './dedupe-memory.js';
export { createRedisDedupeStore, type RedisClientLike, type RedisDedupeStoreOptions } from './dedupe-redis.js';
export { WEBHOOK_EVENT_KINDS, type EventKind, type KnownEventKind } from './event-kinds.js';
// Not exported: the HMAC back ends and the header parser (internals that the functions above cover).
