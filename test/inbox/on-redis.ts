// The set-up the inbox's redis-server tests share: one real redis-server per describe block, an
// admin client on it, and `open()` for an inbox on a queue of its own (so tests never see each
// other's deliveries), every inbox and worker a test opened closed after it; or, for the dashboard's
// tests, one inbox with one entry that the whole block shares (onRedisInbox).
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { bullmqInbox, type BullmqInbox } from '../../src/inbox/index.js';
import { startTestRedis, type TestRedis } from './redis.js';
import { entry } from './support.js';

/** What `onTestRedis` gives a describe block. */
export interface InboxOnRedis {
  /** The redis-server (started before the block's first test). */
  readonly redis: TestRedis;
  /** A plain client on it, for what a test reads or edits behind the inbox's back. */
  readonly admin: Redis;
  /** The name of the queue the last `open()` made. */
  readonly queue: string;
  /** Closed after each test, last opened first: push workers (or anything with `close()`) here. */
  readonly opened: Array<{ close(): Promise<void> }>;
  /** An inbox on this Redis, on a queue of its own unless `options.queue` names one, closed after the test. */
  open(options?: Partial<Parameters<typeof bullmqInbox>[0]>): BullmqInbox;
}

/**
 * Starts a redis-server with `args` for the enclosing describe block (call it there), and gives its
 * inboxes: each on queue `<queuePrefix><n>`, quiet (`warn` ignored) and with `defaults` unless a test says otherwise.
 */
export function onTestRedis({ args = ['--appendonly', 'yes'], queuePrefix = 'q', defaults = {} }: { args?: string[]; queuePrefix?: string; defaults?: Partial<Parameters<typeof bullmqInbox>[0]> } = {}): InboxOnRedis {
  let redis: TestRedis | undefined;
  let admin: Redis | undefined;
  let index = 0;
  let queue = '';
  const opened: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    redis = await startTestRedis(args);
    admin = new Redis({ host: '127.0.0.1', port: redis.port });
  });
  afterEach(async () => {
    for (const closable of opened.splice(0).reverse()) await closable.close();
  });
  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
    redis?.remove();
  });
  return {
    get redis() {
      return redis!;
    },
    get admin() {
      return admin!;
    },
    get queue() {
      return queue;
    },
    opened,
    open(options = {}) {
      queue = `${queuePrefix}${++index}`;
      const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: redis!.port }, queue, warn: () => {}, ...defaults, ...options });
      if (options.queue !== undefined) queue = options.queue;
      opened.push(inbox);
      return inbox;
    },
  };
}

/** What `onRedisInbox` gives a describe block. */
export interface OneInboxOnRedis {
  /** The redis-server (started before the block's first test). */
  readonly redis: TestRedis;
  /** The block's one inbox, on the queue it was named, holding the one entry from the start. */
  readonly inbox: BullmqInbox;
}

/**
 * For the enclosing describe block (call it there): a redis-server without persistence, one inbox on
 * `queue` (quiet, `acceptNoPersistence`: the dashboard's tests are not about durability) holding
 * `entry(deliveryId)`, shared by the block's tests and closed, with the server, after the last.
 */
export function onRedisInbox(queue: string, deliveryId: string): OneInboxOnRedis {
  let redis: TestRedis | undefined;
  let inbox: BullmqInbox | undefined;
  beforeAll(async () => {
    redis = await startTestRedis([]);
    inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: redis.port }, queue, warn: () => {}, acceptNoPersistence: true });
    await inbox.put(entry(deliveryId));
  });
  afterAll(async () => {
    await inbox?.close();
    await redis?.stop();
    redis?.remove();
  });
  return {
    get redis() {
      return redis!;
    },
    get inbox() {
      return inbox!;
    },
  };
}
