/**
 * `svc-sdk`: the {@link Client} of the deal, data-room and webhook service, its errors and types,
 * and the webhook helpers of `svc-sdk/webhooks`.
 *
 * @module svc-sdk
 */
// The entry of `svc-sdk` for browsers, workerd and other runtimes without Node's built-ins.
export * from './public.js';
export { fileFromPath } from './uploads/file-from-path-web.js';
// The webhook functions that need an HMAC back end, over Web Crypto.
export { verifySignature, verifyWebhook, signPayload, createWebhookHandler } from './webhooks/index.js';
