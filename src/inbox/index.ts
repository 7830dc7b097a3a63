/**
 * `svc-sdk/inbox`: a durable webhook inbox. `createWebhookHandler({ secret, inbox })` stores each
 * verified delivery and answers 2xx only then; workers run `on` later, with retries and dead
 * letters. `bullmq` is an optional peer, loaded by this entry alone (under the `node` condition;
 * elsewhere, edge.ts: the Cloudflare Queues inbox only).
 *
 * @module svc-sdk/inbox
 */
export { bullmqInbox, type BullmqInbox, type BullmqInboxHandler, type BullmqInboxOptions, type BullmqProcessOptions, type InboxRateLimit } from './bullmq.js';
export { createInboxDashboard, serveInboxDashboard, type InboxDashboardOptions, type InboxDashboards, type ServedInboxDashboard, type ServeInboxDashboardOptions } from './dashboard.js';
export {
  cloudflareQueueInbox,
  processQueueBatch,
  type CloudflareMessageBatch,
  type CloudflareQueue,
  type CloudflareQueueMessage,
  type ProcessQueueBatchOptions,
  type QueueMessageContext,
} from './cloudflare.js';
export type {
  DeadLetter,
  DeadLetterNotice,
  InboxBackoff,
  InboxDelivery,
  InboxEntry,
  InboxFilter,
  InboxHandler,
  InboxListing,
  InboxListOptions,
  InboxOutcome,
  InboxProcessOptions,
  InboxReplayFilter,
  InboxRunContext,
  InboxStats,
  InboxStatus,
  InboxWorker,
  WebhookInbox,
} from './types.js';
