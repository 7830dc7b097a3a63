// What both builds of `svc-sdk/inbox` export alike (index.ts under Node, edge.ts elsewhere): the
// Cloudflare Queues inbox and the types. Each build adds its own `bullmqInbox`.
export {
  cloudflareQueueInbox,
  processQueueBatch,
  type CloudflareMessageBatch,
  type CloudflareQueue,
  type CloudflareQueueMessage,
  type ProcessQueueBatchOptions,
} from './cloudflare.js';
export type { BullmqInbox, BullmqInboxOptions, BullmqProcessOptions } from './bullmq.js';
export type { DeadLetter, InboxBackoff, InboxEntry, InboxHandler, InboxOutcome, InboxProcessOptions, InboxStats, InboxWorker, WebhookInbox } from './types.js';
