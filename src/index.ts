/**
 * `svc-sdk`: the {@link Client} of the deal, data-room and webhook service, its errors and types,
 * and the webhook helpers of `svc-sdk/webhooks`.
 *
 * @module svc-sdk
 */
// The entry of `svc-sdk` for browsers, workerd and other runtimes without Node's built-ins.
export * from './public.js';
export { fileFromPath } from './uploads/file-from-path-web.js';
// The values of `svc-sdk/webhooks` (over Web Crypto for the four that need an HMAC back end), taken from
// that entry here rather than in public.ts: each build of `svc-sdk` re-exports its own twin's very
// values (its classes included), which the build imports from that entry's file (tsup.config.ts).
export {
  verifySignature,
  verifyWebhook,
  signPayload,
  createWebhookHandler,
  createMemoryDedupeStore,
  createRedisDedupeStore,
  WebhookVerificationError,
  WebhookPayloadError,
  WEBHOOK_EVENT_KINDS,
  toNodeListener,
} from './webhooks/index.js';
