// `svc-sdk/webhooks` under the `node` export condition: the same names as index.ts, with the
// HMAC done by node:crypto (synchronous, KeyObject-cached: faster than Web Crypto on Node).
import { createHandlerWith, type WebhookHandler, type WebhookHandlerOptions } from './handler.js';
import { hmacSign, hmacVerify, verifyNode } from './hmac-node.js';
import type { WebhookEvent } from './events.js';
import { signWith } from './sign.js';
import type { RawBody, SignatureHeader, SigningSecret } from './signature.js';
import { verifyWebhookWith } from './verify-webhook.js';

/**
 * Whether `header` (`X-Svc-Signature`) is the HMAC-SHA256 of the exact raw body under the secret
 * (or any of several, during a rotation). Compares in constant time; junk input gives `false`, never a throw.
 *
 * @example
 * ```ts
 * if (!(await verifySignature(rawBody, req.headers['x-svc-signature'], process.env.SVC_WEBHOOK_SECRET!))) return res.sendStatus(401);
 * ```
 */
export async function verifySignature(rawBody: RawBody, header: SignatureHeader, secret: SigningSecret): Promise<boolean> {
  return verifyNode(rawBody, header, secret);
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
  return createHandlerWith(verifySignature, options);
}

// Every other name is index.ts's (the same shared modules, so classes are the same and instanceof
// holds across entries); the four functions above replace their Web Crypto namesakes.
export * from './index.js';
