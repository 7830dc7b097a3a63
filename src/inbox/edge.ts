// svc-sdk/inbox outside Node (Workers, browsers): the Cloudflare Queues inbox, without BullMQ, which
// needs Node's sockets. `bullmqInbox` here only says so.
import type { BullmqInbox, BullmqInboxOptions } from './bullmq.js';
import type { InboxDashboardOptions, InboxDashboards, ServedInboxDashboard, ServeInboxDashboardOptions } from './dashboard.js';

export type { InboxDashboardOptions, InboxDashboards, ServedInboxDashboard, ServeInboxDashboardOptions } from './dashboard.js';

export * from './exports.js';

/**
 * BullMQ needs Node (or Bun, Deno): this runtime loaded the edge build of svc-sdk/inbox.
 *
 * @param _options BullMQ's `connection` to Redis, the `queue` name, and how long finished jobs are kept.
 */
export function bullmqInbox(_options: BullmqInboxOptions): BullmqInbox {
  throw new Error('[svc-sdk] bullmqInbox needs Node, Bun or Deno (BullMQ talks to Redis over TCP): on Workers use cloudflareQueueInbox(env.QUEUE)');
}

/**
 * bull-board needs Node (its adapters serve over node:http): this runtime loaded the edge build of svc-sdk/inbox.
 *
 * @param _inbox The inbox `bullmqInbox()` made (only under Node).
 * @param _options The `framework`, `basePath`, `credential` and `allowReplay`.
 */
export async function createInboxDashboard<F extends keyof InboxDashboards>(_inbox: BullmqInbox, _options: InboxDashboardOptions & { framework: F }): Promise<InboxDashboards[F]> {
  throw new Error('[svc-sdk] createInboxDashboard needs Node, Bun or Deno (bull-board serves over node:http): mount it in a Node app');
}

/**
 * bull-board needs Node: this runtime loaded the edge build of svc-sdk/inbox.
 *
 * @param _inbox The inbox `bullmqInbox()` made (only under Node).
 * @param _options The `credential`, `host`, `port` and `allowReplay`.
 */
export async function serveInboxDashboard(_inbox: BullmqInbox, _options: ServeInboxDashboardOptions): Promise<ServedInboxDashboard> {
  throw new Error('[svc-sdk] serveInboxDashboard needs Node, Bun or Deno (bull-board serves over node:http): run it in a Node process');
}
