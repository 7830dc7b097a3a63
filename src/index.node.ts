// The entry of `svc-sdk` under the `node` export condition (Node, Bun, Deno): the same surface as
// index.ts, with a fileFromPath that opens files on disk and the webhook functions over node:crypto
// (faster there than Web Crypto).
export * from './public.js';
export { fileFromPath } from './uploads/file-from-path.js';
export { verifySignature, verifyWebhook, signPayload, createWebhookHandler } from './webhooks/index.node.js';
