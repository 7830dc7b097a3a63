// The durable inbox on BullMQ: the receiver puts each verified delivery in a Redis-backed queue,
// keyed by its delivery_id, with a digest of what it stored, and answers 2xx only then; workers
// (bullmq-worker.ts) on any number of processes run `on` with retries, and a delivery whose attempts
// are spent stays as a dead letter until replayed. An operator lists, shows and replays deliveries
// by state, kind and time (bullmq-entries.ts), each operation bounded in time and its trouble said
// in one line (connection-trouble.ts).
import { Queue, type ConnectionOptions, type Job } from 'bullmq';
import { deadLetters, listEntries, replayEntries, showEntry, type EntryData, type ReplayTarget } from './bullmq-entries.js';
import { startWorker, type BullmqInboxHandler, type BullmqProcessOptions } from './bullmq-worker.js';
import { messageOf, watchTrouble } from './connection-trouble.js';
import { durabilityOf } from './durability.js';
import { digestOf } from './integrity.js';
import { jobIdOf } from './job-id.js';
import type { DeadLetter, InboxDelivery, InboxEntry, InboxListing, InboxListOptions, InboxStats, InboxWorker, WebhookInbox } from './types.js';

export type { BullmqInboxHandler, BullmqProcessOptions, InboxRateLimit } from './bullmq-worker.js';

/** 24 hours: completed entries outlive the service's retries (about 10 h 36 min) with room to spare. */
const DAY_MS = 86_400_000;
/** More attempts than any worker spends: the worker, not BullMQ, decides when a delivery is dead. */
const UNSPENT_ATTEMPTS = 2_147_483_647;
/** The custom backoff's name on every job: the worker's `backoff` computes its delay. */
const BACKOFF_TYPE = 'svc-sdk-inbox';

/** Options of `bullmqInbox`. */
export interface BullmqInboxOptions {
  /** BullMQ's connection: ioredis options (`{ host, port }`, `{ url }`) or a client. */
  connection: ConnectionOptions;
  /** The queue's name, shared by the receivers and the workers. Default `svc-webhooks`. */
  queue?: string | undefined;
  /** BullMQ's key prefix. Default BullMQ's (`bull`). */
  prefix?: string | undefined;
  /** How long a processed delivery is kept to deduplicate the service's retries. Default and minimum 24 h. */
  keepCompletedMs?: number | undefined;
  /** Store deliveries on a Redis without an append-only file, knowing a restart may lose the latest. Default false (a warning). */
  acceptNoPersistence?: boolean | undefined;
  /**
   * Where the warning about persistence, workers' failures (rate-limited) and connection errors go. Default `console.warn`.
   *
   * @param message The warning, starting `[svc-sdk] `.
   */
  warn?: ((message: string) => void) | undefined;
  /** How often the Redis configuration is checked again (a policy switched to evicting stops the storing). Default 60 000 ms. */
  durabilityCheckMs?: number | undefined;
  /** The most an operation (stats, list, show, replay, deadLetters, close) may take before it fails with why. Default 10 000 ms. */
  timeoutMs?: number | undefined;
  /**
   * A key for the digest stored with each delivery (an HMAC): a worker then refuses any entry whose
   * body was written by someone without it. Default none (a SHA-256, which catches edits that did not recompute it).
   */
  integrityKey?: string | undefined;
}

/** A durable webhook inbox on BullMQ: `createWebhookHandler({ secret, inbox })` stores, `process` runs. */
export interface BullmqInbox extends WebhookInbox {
  /**
   * Runs `on(event)` for every stored delivery, `concurrency` at a time, with retries and backoff;
   * a delivery whose `attempts` are spent becomes a dead letter. Any number of workers, in any
   * number of processes, may share the queue. `close()` on SIGTERM lets the running ones finish.
   *
   * @param on Processes one stored event; a throw retries it later.
   * @param options `concurrency`, `attempts`, `backoff`, `onOutcome`, and BullMQ's `workerOptions`.
   */
  process(on: BullmqInboxHandler, options?: BullmqProcessOptions): InboxWorker;
  /** Every dead letter, oldest first. */
  deadLetters(): Promise<DeadLetter[]>;
  /**
   * The deliveries a filter selects (`status`, `kind`, `since`, `until`), oldest stored first, at most `limit` (1000).
   *
   * @param filter Which deliveries: `status`, `kind`, `since`, `until` and `limit`; all of them when omitted.
   */
  list(filter?: InboxListOptions): Promise<InboxListing[]>;
  /**
   * One delivery in full (its body, event, attempts, last error), or `undefined` when the inbox has none of that id.
   *
   * @param deliveryId The delivery's `delivery_id`.
   */
  show(deliveryId: string): Promise<InboxDelivery | undefined>;
  /**
   * Runs deliveries again, on purpose past deduplication: one id (a dead letter, or one already
   * processed; one waiting or running is refused), `{ all: true }` every dead letter, or a filter
   * (`{ kind, since, until, status }`; an empty one is refused) with `dryRun: true` to count first.
   * Resolves with the delivery ids queued again (or that would be).
   *
   * @param target The delivery id to run again, `{ all: true }` for every dead letter, or a filter (with `dryRun` to count first).
   */
  replay(target: ReplayTarget): Promise<string[]>;
  /** How many deliveries are waiting, running, delayed, processed and dead. */
  stats(): Promise<InboxStats>;
  /** Closes the inbox's connection (workers are closed by their own `close()`). */
  close(): Promise<void>;
}

/** Each inbox's queue, for the dashboard (bull-board shows a BullMQ queue): not part of the inbox's API. */
const queues = new WeakMap<BullmqInbox, Queue<EntryData>>();

/** The BullMQ queue of an inbox `bullmqInbox` made, or `undefined`. */
export function queueOf(inbox: BullmqInbox): Queue<EntryData> | undefined {
  return queues.get(inbox);
}

/** The durability check refused this Redis's configuration: no retry helps until it is changed. */
class NotDurableError extends Error {
  // Named so a log line says what refused, not a bare `Error:`.
  override name = 'NotDurableError';
}

/**
 * A durable webhook inbox on Redis through BullMQ. Before it stores anything it reads the Redis
 * configuration: an eviction policy other than `noeviction` is refused, a Redis without an
 * append-only file gets one warning naming what could be lost.
 *
 * @param options BullMQ's `connection` to Redis, the `queue` name, and how long finished jobs are kept.
 *
 * @example
 * ```ts
 * import { createWebhookHandler } from 'svc-sdk/webhooks';
 * import { bullmqInbox } from 'svc-sdk/inbox';
 *
 * const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: 6379 } });
 * export const POST = createWebhookHandler({ secret: process.env.SVC_WEBHOOK_SECRET!, inbox });
 *
 * // In a worker process (as many as you like):
 * const worker = inbox.process(async (event) => {
 *   if (event.event === 'document.uploaded') console.log(event.data.filename);
 * }, { concurrency: 8 });
 * process.once('SIGTERM', () => void worker.close());
 * ```
 */
export function bullmqInbox(options: BullmqInboxOptions): BullmqInbox {
  // BullMQ's own default prefix, named here: the inbox's own keys (its mark, the rate windows) sit beside the queue's.
  const { connection, queue: name = 'svc-webhooks', prefix = 'bull', acceptNoPersistence = false, warn = console.warn, integrityKey } = options;
  const keepCompletedMs = options.keepCompletedMs ?? DAY_MS;
  const durabilityCheckMs = options.durabilityCheckMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!connection) throw new TypeError('[svc-sdk] bullmqInbox: connection is missing: pass BullMQ\'s connection ({ host, port } or { url })');
  if (!(keepCompletedMs >= DAY_MS)) {
    throw new RangeError(`[svc-sdk] bullmqInbox: keepCompletedMs must be at least ${DAY_MS} (24 h): the service retries a delivery for about 10 h 36 min, and a processed one must still deduplicate then`);
  }
  if (!(Number.isInteger(durabilityCheckMs) && durabilityCheckMs >= 1)) throw new RangeError(`[svc-sdk] bullmqInbox: durabilityCheckMs must be a whole number of ms ≥ 1 (got ${String(durabilityCheckMs)})`);
  if (!(Number.isInteger(timeoutMs) && timeoutMs >= 1)) throw new RangeError(`[svc-sdk] bullmqInbox: timeoutMs must be a whole number of ms ≥ 1 (got ${String(timeoutMs)})`);
  if (integrityKey !== undefined && !(typeof integrityKey === 'string' && integrityKey.length >= 16)) {
    throw new TypeError('[svc-sdk] bullmqInbox: integrityKey must be a string of at least 16 characters (a random secret shared by the receivers and the workers)');
  }
  const trouble = watchTrouble(connection, timeoutMs);
  const queue = new Queue<EntryData>(name, { connection, prefix });
  // BullMQ reports connection trouble as 'error' events: without a listener, Node would throw them.
  // The last one is kept to say why an operation did not answer; the warning is said once per kind of trouble.
  let lastWarned: string | undefined;
  queue.on('error', (error) => {
    trouble.hear(error);
    const line = `[svc-sdk] inbox: ${messageOf(error)}`;
    if (line !== lastWarned) warn((lastWarned = line));
  });
  const client = () => (queue as unknown as { backend: { client: Promise<RedisCommands> } }).backend.client;
  let checked: { verdict: Promise<void>; at: number } | undefined;
  let warnedPersistence = false;
  /**
   * The durability check before storing or working, asked again once the last pass is older than
   * `durabilityCheckMs`: a policy switched to evicting keys while the receivers run stops the
   * storing from then on (each delivery answered 500; the service retries). One that failed is asked
   * again by the next call: a Redis unreachable for a moment (restarting, or a connection with
   * `enableOfflineQueue: false` not yet ready) must not leave the inbox refusing every delivery
   * until the process restarts, and a refused configuration may be fixed meanwhile.
   */
  const ready = (fresh = false): Promise<void> => {
    if (checked && !fresh && Date.now() - checked.at < durabilityCheckMs) return checked.verdict;
    const current = {
      at: Date.now(),
      verdict: (async () => {
        const verdict = durabilityOf(await (await client()).info(), acceptNoPersistence);
        if (verdict.refuse) throw new NotDurableError(verdict.refuse);
        // Said once per inbox: repeating it at each check would be noise.
        if (verdict.warn && !warnedPersistence) {
          warnedPersistence = true;
          warn(verdict.warn);
        }
      })(),
    };
    current.verdict.catch(() => {
      if (checked === current) checked = undefined;
    });
    checked = current;
    return current.verdict;
  };
  /** Fails with a one-line error when the queue was never used in this Redis: a typo lists nothing, never zeros. */
  const known = async () => {
    const base = `${prefix}:${name}`;
    const redis = await client();
    if ((await redis.exists(`${base}:events`, `${base}:${MARK_KEY}`)) > 0) return;
    const others = await queueNames(redis, prefix);
    throw new Error(
      `[svc-sdk] inbox: no queue ${JSON.stringify(name)} in this Redis (prefix ${prefix}): nothing was ever stored in it; pass the receivers' queue (queue option, or --queue)` +
        (others.length ? `; queues here: ${others.join(', ')}` : ''),
    );
  };
  /** An operator's operation: on a known queue, within `timeoutMs`, its trouble said in one line. */
  const operate = <T>(what: string, operation: () => Promise<T>) =>
    trouble.bounded(what, async () => {
      await known();
      return operation();
    });
  const keptHours = Math.round(keepCompletedMs / 3_600_000);

  const inbox: BullmqInbox = {
    async put(entry: InboxEntry) {
      await ready();
      await queue.add(
        entry.kind,
        { body: entry.body, receivedAt: entry.receivedAt, digest: digestOf(entry.deliveryId, entry.kind, entry.body, integrityKey) },
        {
          jobId: jobIdOf(entry.deliveryId),
          attempts: UNSPENT_ATTEMPTS,
          backoff: { type: BACKOFF_TYPE },
          removeOnComplete: { age: Math.ceil(keepCompletedMs / 1000) },
          // Dead letters stay until replayed or removed by hand: never expired silently.
          removeOnFail: false,
        },
      );
    },

    process(on, processOptions = {}) {
      return startWorker(
        {
          name,
          connection,
          prefix,
          queue,
          // A worker marks the queue as one of the inbox's: `inbox ls` on it before any delivery lists nothing, rightly.
          ready: (fresh) => ready(fresh).then(() => mark()),
          durabilityCheckMs,
          warn,
          integrityKey,
          isRefusal: (error) => error instanceof NotDurableError,
        },
        on,
        processOptions,
      );
    },

    deadLetters: () => operate('deadLetters', () => deadLetters(queue)),
    list: (filter = {}) => operate('list', () => listEntries(queue, filter)),
    show: (deliveryId) => operate('show', () => showEntry(queue, deliveryId)),
    replay: (target) => operate('replay', () => replayEntries(queue, target, keptHours, resetDeaths)),

    stats: () =>
      operate('stats', async () => {
        // No entry has a priority (BullMQ's `prioritized` state stays empty), as list() reads `waiting` alone too.
        const { waiting = 0, active = 0, delayed = 0, completed = 0, failed = 0 } = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
        return { waiting, active, delayed, completed, dead: failed } satisfies InboxStats;
      }),

    // Bounded like the rest: a Redis that never answered leaves BullMQ's close() waiting; the socket is dropped then.
    close: () => trouble.bounded('close', () => queue.close()).catch(() => queue.disconnect()),
  };
  queues.set(inbox, queue);
  return inbox;

  async function mark(): Promise<void> {
    const redis = await client();
    await redis.set(`${prefix}:${name}:${MARK_KEY}`, '1');
  }

  /** A replayed delivery starts with no worker deaths counted: its `on` may have been fixed. */
  async function resetDeaths(job: Job<EntryData>): Promise<void> {
    if (job.stalledCounter) await (await client()).hdel(`${prefix}:${name}:${job.id}`, 'stc');
  }
}

/** The few Redis commands the inbox sends itself (BullMQ sends the rest). */
interface RedisCommands {
  info(): Promise<string>;
  exists(...keys: string[]): Promise<number>;
  set(key: string, value: string): Promise<unknown>;
  hdel(key: string, field: string): Promise<number>;
  scan(cursor: number, match: 'MATCH', pattern: string, count: 'COUNT', size: number): Promise<[string, string[]]>;
}

/** The key a worker sets beside the queue's own: the queue is the inbox's even before its first delivery. */
const MARK_KEY = 'svc-sdk-inbox';

/** How many keys the scan for the message about an unknown queue looks at, per suffix: one bounded round trip each. */
const SCAN_KEYS = 20_000;

/**
 * Up to 10 names of the inbox queues under `prefix` in this Redis (a queue that stored a delivery has
 * its `events`, one a worker ran on has its mark), from one bounded scan per suffix, for the message
 * about an unknown one. Not BullMQ's `meta`: opening a queue of any name writes one. On a Redis of
 * more keys than the scan looks at, a queue may go unnamed: the names are a hint, not an inventory.
 */
async function queueNames(redis: RedisCommands, prefix: string): Promise<string[]> {
  const names = new Set<string>();
  for (const suffix of [':events', `:${MARK_KEY}`]) {
    const [, keys] = await redis.scan(0, 'MATCH', `${prefix}:*${suffix}`, 'COUNT', SCAN_KEYS);
    for (const key of keys) names.add(key.slice(prefix.length + 1, -suffix.length));
  }
  return [...names].sort().slice(0, 10);
}
