// The four functions that differ between the entries only by their HMAC back end, documented
// once: each is written once too (verifySignatureWith, verifyWebhookWith, signPayloadWith,
// createWebhookHandlerWith), and an entry makes it with its back end (index.ts: Web Crypto;
// index.node.ts: node:crypto). The documentation is on the call signatures below, which editors
// show at the call site and the API reference renders.
import type { WebhookEvent } from './events.js';
import type { RawBody, SignatureHeader, SigningSecret, VerifyWebhookOptions, WebhookHandler, WebhookHandlerOptions } from './types.js';

/** The type of `verifySignature`. */
export interface VerifySignature {
  /**
   * Whether `header` (`X-Svc-Signature`) is the HMAC-SHA256 of the exact raw body under the secret
   * (or any of several, during a rotation). Compares in constant time; junk input (an empty secret
   * included) gives `false`, never a throw. It does not check the replay window: `verifyWebhook` does.
   *
   * @param rawBody The exact bytes received, before any JSON parsing.
   * @param header The `X-Svc-Signature` header (`sha256=<hex>`) as it arrived.
   * @param secret The endpoint's signing secret, or several during a rotation.
   *
   * @example
   * ```ts
   * import { verifySignature } from 'svc-sdk/webhooks';
   * const rawBody = '{"event":"ping.test"}';
   * const ok = await verifySignature(rawBody, 'sha256=…', process.env.SVC_WEBHOOK_SECRET!);
   * ```
   */
  (rawBody: RawBody, header: SignatureHeader, secret: SigningSecret): Promise<boolean>;
}

/** The type of `verifyWebhook`. */
export interface VerifyWebhook {
  /**
   * Verifies the signature, parses the body and checks its signed `timestamp` against the replay
   * window: the typed event, or `WebhookVerificationError` (its `reason` says why: a bad or missing
   * signature, answer 401; a timestamp outside the window, answer 400) or `WebhookPayloadError`
   * (not a delivery envelope: 400). Deduplicate by `event.delivery_id` as well (`createWebhookHandler` does).
   *
   * @param rawBody The exact bytes received, before any JSON parsing.
   * @param header The `X-Svc-Signature` header (`sha256=<hex>`) as it arrived.
   * @param secret The endpoint's signing secret, or several during a rotation.
   * @param options The `tolerance`: how old a delivery may be, in ms (default 12 h), or `false`.
   *
   * @example
   * ```ts
   * import { verifyWebhook } from 'svc-sdk/webhooks';
   * declare const rawBody: Uint8Array; // the bytes received, e.g. req.body from express.raw({ type: 'application/json' })
   * const event = await verifyWebhook(rawBody, 'sha256=…', process.env.SVC_WEBHOOK_SECRET!, { tolerance: 60 * 60 * 1000 });
   * if (event.event === 'document.uploaded') console.log(event.data.filename);
   * ```
   */
  (rawBody: RawBody, header: SignatureHeader, secret: SigningSecret, options?: VerifyWebhookOptions): Promise<WebhookEvent>;
}

/** The type of `signPayload`. */
export interface SignPayload {
  /**
   * The `X-Svc-Signature` value the service would send for this body: `'sha256=<hex>'`. For tests.
   *
   * @param rawBody The exact body to sign, as it will be sent.
   * @param secret The signing secret.
   *
   * @example
   * ```ts
   * import { signPayload } from 'svc-sdk/webhooks';
   * const body = JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: 'd1', timestamp: new Date().toISOString(), data: {} });
   * const signature = await signPayload(body, 'whsec_test');
   * ```
   */
  (rawBody: RawBody, secret: string): Promise<string>;
}

/** The type of `createWebhookHandler`. */
export interface CreateWebhookHandler {
  /**
   * A fetch-standard `(request) => Promise<Response>` webhook receiver: reads at most
   * `maxBodyBytes`, verifies, checks the replay window, deduplicates by `delivery_id` and calls
   * `on`; answers 200 `{ received: true }`, or 401/400/405/409/413/500 with a JSON `{ error }`.
   * On Node servers (Express, Fastify, Koa, `node:http`) wrap it with `toNodeListener`. The secret
   * is read when the first delivery arrives (`SVC_WEBHOOK_SECRET` when `secret` is omitted), so
   * making the handler never needs it (`next build` loads route modules without it).
   *
   * @param options The `secret`, the `on` callback for each verified event, deduplication, and how failures are answered.
   *
   * @example
   * ```ts
   * import { createWebhookHandler } from 'svc-sdk/webhooks';
   * // app/api/webhooks/route.ts (Next.js); the same function serves Hono, Workers, Bun and Deno.
   * export const POST = createWebhookHandler({
   *   // secret omitted: SVC_WEBHOOK_SECRET, read at the first delivery
   *   on: async (event) => {
   *     if (event.event === 'document.uploaded') console.log(event.data.document_id);
   *   },
   * });
   * ```
   */
  (options: WebhookHandlerOptions): WebhookHandler;
}
