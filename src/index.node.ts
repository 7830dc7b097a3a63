// The Node entry of `svc-sdk`: the same surface as index.ts (re-exported whole, so the two lists
// cannot drift), where a local export below replaces the name it shares with index.ts.
export * from './index.js';
export { Client } from './client-node.js';
export { fileFromPath } from './uploads/file-from-path.js';
// The HMAC-dependent webhook functions over node:crypto (faster on Node than Web Crypto).
export { verifySignature, verifyWebhook, signPayload, createWebhookHandler } from './webhooks/index.node.js';
