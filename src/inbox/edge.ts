// svc-sdk/inbox outside Node (Workers, browsers): the Cloudflare Queues inbox, without BullMQ, which
// needs Node's sockets. `bullmqInbox` here only says so.
import type { BullmqInbox, BullmqInboxOptions } from './bullmq.js';

export {
  cloudflareQueueInbox,
  processQueueBatch,
  type CloudflareMessageBatch,
  type CloudflareQueue,
  type CloudflareQueueMessage,
  type ProcessQueueBatchOptions,
  type QueueMessageContext,
} from './cloudflare.js';
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

/** BullMQ needs Node (or Bun, Deno): this runtime loaded the edge build of svc-sdk/inbox. */
export function bullmqInbox(_options: BullmqInboxOptions): BullmqInbox {
  throw new Error('[svc-sdk] bullmqInbox needs Node, Bun or Deno (BullMQ talks to Redis over TCP): on Workers use cloudflareQueueInbox(env.QUEUE)');
}
