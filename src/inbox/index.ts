/**
 * `svc-sdk/inbox`: a durable webhook inbox. `createWebhookHandler({ secret, inbox })` stores each
 * verified delivery and answers 2xx only then; workers run `on` later, with retries and dead
 * letters. `bullmq` is an optional peer, loaded by this entry alone (under the `node` condition;
 * elsewhere, edge.ts: the Cloudflare Queues inbox only).
 *
 * @module svc-sdk/inbox
 */
export { bullmqInbox } from './bullmq.js';
export { createInboxDashboard, serveInboxDashboard, type InboxDashboardOptions, type InboxDashboards, type ServedInboxDashboard, type ServeInboxDashboardOptions } from './dashboard.js';
export * from './exports.js';
