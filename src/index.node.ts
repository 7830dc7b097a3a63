// The entry of `svc-sdk` under the `node` export condition (Node, Bun, Deno): the same surface as
// index.ts, with a fileFromPath that opens files on disk and the webhook functions over node:crypto
// (faster there than Web Crypto).
export * from './public.js';
export { fileFromPath } from './uploads/file-from-path.js';
export { verifySignature, verifyWebhook, signPayload, createWebhookHandler } from './webhooks/index.node.js';
// documents.uploadMany reads directories and writes its manifest through node:fs, and hashes with
// node:crypto: registered here, so the web entry's bundle carries none of it.
import { useFileSystem } from './uploads/file-system.js';
import { nodeFileSystem } from './uploads/file-system-node.js';
useFileSystem(nodeFileSystem);
