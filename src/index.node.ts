// The entry of `svc-sdk` under the `node` export condition (Node, Bun, Deno): the same surface as
// index.ts, with a fileFromPath that opens files on disk and the webhook functions over node:crypto
// (faster there than Web Crypto).
export * from './public.js';
export { fileFromPath } from './uploads/file-from-path.js';
// Everything of `svc-sdk/webhooks` (its four HMAC functions over node:crypto), taken from that entry here
// rather than in public.ts: each build of `svc-sdk` re-exports its own twin's very values (its
// classes included), which the build imports from that entry's file (tsup.config.ts).
export * from './webhooks/index.node.js';
// documents.uploadMany reads directories and writes its manifest through node:fs, and hashes with
// node:crypto: chosen here, by the `node` export condition, so the web entry's bundle carries none of
// it; and registered as a loader (a dynamic import), so a Client that never calls uploadMany does not load it.
import { useFileSystem } from './uploads/file-system.js';
useFileSystem(async () => (await import('./uploads/file-system-node.js')).nodeFileSystem);
// Proxies and certificates (Client options proxy, ca, cert, key, dispatcher; HTTPS_PROXY): Node's rules
// for them, and the dispatcher undici (an optional peer) makes, loaded with the first attempt that needs
// it. Registered here, so the web entry's bundle carries neither (its runtimes' fetch has its own settings).
import { useTransport } from './core/transport.js';
import { defaultRoute, settingsOf } from './core/transport-settings-node.js';
useTransport({ settingsOf, defaultRoute, load: () => import('./core/transport-node.js') });
