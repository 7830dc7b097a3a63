// `svc-sdk/webhooks` under the `node` export condition: the same names as index.ts, with the
// four back-end functions over node:crypto (synchronous, KeyObject-cached: faster than Web Crypto
// on Node); everything else is exports.ts.
import type { CreateWebhookHandler, SignPayload, VerifySignature, VerifyWebhook } from './api.js';
import { createWebhookHandlerWith } from './handler.js';
import { hmacSign, hmacVerify } from './hmac-node.js';
import { signPayloadWith } from './sign.js';
import { verifyWebhookWith } from './verify-webhook.js';
import { verifySignatureWith } from './verify.js';

/** Checks an `X-Svc-Signature` (node:crypto); see `VerifySignature`. */
export const verifySignature: VerifySignature = /* @__PURE__ */ verifySignatureWith(hmacVerify);
/** Verifies and parses a delivery (node:crypto); see `VerifyWebhook`. */
export const verifyWebhook: VerifyWebhook = /* @__PURE__ */ verifyWebhookWith(hmacVerify);
/** Signs a body as the service does (node:crypto); see `SignPayload`. */
export const signPayload: SignPayload = /* @__PURE__ */ signPayloadWith(hmacSign);
/** A fetch-standard webhook receiver (node:crypto); see `CreateWebhookHandler`. */
export const createWebhookHandler: CreateWebhookHandler = /* @__PURE__ */ createWebhookHandlerWith(hmacVerify);

export * from './exports.js';
