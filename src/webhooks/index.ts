/**
 * `svc-sdk/webhooks`: verify and receive the service's signed webhook deliveries, without the HTTP client.
 *
 * @module svc-sdk/webhooks
 */
// `svc-sdk/webhooks` for every runtime: the four back-end functions over Web Crypto. The Node
// entry (index.node.ts) makes the same four over node:crypto; everything else is exports.ts.
import type { CreateWebhookHandler, SignPayload, VerifySignature, VerifyWebhook } from './api.js';
import { createWebhookHandlerWith } from './handler.js';
import { hmacSign, hmacVerify } from './hmac-web.js';
import { signPayloadWith } from './sign.js';
import { verifyWebhookWith } from './verify-webhook.js';
import { verifySignatureWith } from './verify.js';

/** Checks an `X-Svc-Signature` (Web Crypto); see `VerifySignature`. */
export const verifySignature: VerifySignature = /* @__PURE__ */ verifySignatureWith(hmacVerify);
/** Verifies and parses a delivery (Web Crypto); see `VerifyWebhook`. */
export const verifyWebhook: VerifyWebhook = /* @__PURE__ */ verifyWebhookWith(hmacVerify);
/** Signs a body as the service does (Web Crypto); see `SignPayload`. */
export const signPayload: SignPayload = /* @__PURE__ */ signPayloadWith(hmacSign);
/** A fetch-standard webhook receiver (Web Crypto); see `CreateWebhookHandler`. */
export const createWebhookHandler: CreateWebhookHandler = /* @__PURE__ */ createWebhookHandlerWith(hmacVerify);

export * from './exports.js';
