/**
 * `svc-sdk`: the {@link Client} of the deal, data-room and webhook service, its errors and types,
 * and the webhook helpers of `svc-sdk/webhooks`.
 *
 * @module svc-sdk
 */
// The entry of `svc-sdk` for browsers, workerd and other runtimes without Node's built-ins.
export * from './public.js';
export { fileFromPath } from './uploads/file-from-path-web.js';
// Everything of `svc-sdk/webhooks` (its four HMAC functions over Web Crypto), taken from that entry here
// rather than in public.ts: each build of `svc-sdk` re-exports its own twin's very values (its
// classes included), which the build imports from that entry's file (tsup.config.ts).
export * from './webhooks/index.js';
