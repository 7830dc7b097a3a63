// svc-sdk/inbox outside Node (Workers, browsers): the Cloudflare Queues inbox, without BullMQ, which
// needs Node's sockets. `bullmqInbox` here only says so.
import type { BullmqInbox, BullmqInboxOptions } from './bullmq.js';

export * from './exports.js';

/**
 * BullMQ needs Node (or Bun, Deno): this runtime loaded the edge build of svc-sdk/inbox.
 *
 * @param _options BullMQ's `connection` to Redis, the `queue` name, and how long finished jobs are kept.
 */
export function bullmqInbox(_options: BullmqInboxOptions): BullmqInbox {
  throw new Error('[svc-sdk] bullmqInbox needs Node, Bun or Deno (BullMQ talks to Redis over TCP): on Workers use cloudflareQueueInbox(env.QUEUE)');
}
