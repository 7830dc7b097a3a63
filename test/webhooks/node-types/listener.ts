// Compiled against @types/node 22, 24 and 26 by test/webhooks/node-types.test.ts (each vNN folder's
// tsconfig.json): the Node adapter must take node:http's own request and response from every one.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createWebhookHandler, toNodeListener, type NodeRequestLike, type NodeResponseLike } from '../../../src/webhooks/index.node.js';

const listener = toNodeListener(createWebhookHandler({ on() {} }), { bodyTimeoutMs: 5000 });
// As node:http's request listener, as the README's receivers pass it.
createServer(listener);
// Called with node:http's objects, as Express, Fastify (request.raw) and Koa (ctx.req) hand them over.
createServer((req: IncomingMessage, res: ServerResponse) => void listener(req, res));
// Assignable one by one.
export const request = (req: IncomingMessage): NodeRequestLike => req;
export const response = (res: ServerResponse): NodeResponseLike => res;
