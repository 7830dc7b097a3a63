// What both builds of `svc-sdk/inbox` export alike (index.ts under Node, edge.ts elsewhere): the
// Cloudflare Queues inbox and the types. Each build adds its own `bullmqInbox`; the Node build adds the dashboard.
export {
  cloudflareQueueInbox,
  processQueueBatch,
  type CloudflareMessageBatch,
  type CloudflareQueue,
  type CloudflareQueueMessage,
  type ProcessQueueBatchOptions,
  type QueueMessageContext,
} from './cloudflare.js';
export type { ReplayTarget } from './bullmq-entries.js';
export type { BullmqInbox, BullmqInboxHandler, BullmqInboxOptions, BullmqProcessOptions, InboxRateLimit } from './bullmq.js';
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
