// The durable inbox on BullMQ: the receiver puts each verified delivery in a Redis-backed queue,
// keyed by its delivery_id, and answers 2xx only then; workers on any number of processes run `on`
// with retries, and a delivery whose attempts are spent stays as a dead letter until replayed.
//
// BullMQ sets attempts and backoff per job, when it is added; here they are the worker's
// (`process(on, { attempts, backoff })`), so a job is added with attempts it never spends and a
// custom backoff, and the worker ends it with an UnrecoverableError on its last attempt.
import { Backoffs, Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job, type WorkerOptions } from 'bullmq';
import { readWebhookEvent } from '../webhooks/events.js';
import { durabilityOf } from './durability.js';
import { deliveryIdOf, jobIdOf } from './job-id.js';
import type { DeadLetter, InboxEntry, InboxHandler, InboxOutcome, InboxProcessOptions, InboxStats, InboxWorker, WebhookInbox } from './types.js';

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
   * Where the one warning about persistence and workers' connection errors go. Default `console.warn`.
   *
   * @param message The warning, starting `[svc-sdk] `.
   */
  warn?: ((message: string) => void) | undefined;
}

/** Options of `inbox.process` with BullMQ's worker options for tuning (lock duration, stalled checks). */
export interface BullmqProcessOptions extends InboxProcessOptions {
  /** Passed to BullMQ's `Worker` as they are (`lockDuration`, `stalledInterval`, `maxStalledCount`, …). */
  workerOptions?: Omit<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'autorun' | 'settings'> | undefined;
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
  process(on: InboxHandler, options?: BullmqProcessOptions): InboxWorker;
  /** The dead letters, oldest first. */
  deadLetters(): Promise<DeadLetter[]>;
  /**
   * Runs a delivery again, on purpose past deduplication: a dead letter, or one already processed.
   * `{ all: true }` replays every dead letter. Resolves with the delivery ids queued again.
   *
   * @param target The delivery id to run again, or `{ all: true }` for every dead letter.
   */
  replay(target: string | { all: true }): Promise<string[]>;
  /** How many deliveries are waiting, running, delayed, processed and dead. */
  stats(): Promise<InboxStats>;
  /** Closes the inbox's connection (workers are closed by their own `close()`). */
  close(): Promise<void>;
}

/** What each job holds: the body as received and when; its name is the event kind, its id the delivery's. */
interface EntryData {
  body: string;
  receivedAt: number;
}

/** The durability check refused this Redis's configuration: no retry helps until it is changed. */
class NotDurableError extends Error {}

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
  const { connection, queue: name = 'svc-webhooks', prefix, acceptNoPersistence = false, warn = console.warn } = options;
  const keepCompletedMs = options.keepCompletedMs ?? DAY_MS;
  if (!connection) throw new TypeError('[svc-sdk] bullmqInbox: connection is missing: pass BullMQ\'s connection ({ host, port } or { url })');
  if (!(keepCompletedMs >= DAY_MS)) {
    throw new RangeError(`[svc-sdk] bullmqInbox: keepCompletedMs must be at least ${DAY_MS} (24 h): the service retries a delivery for about 10 h 36 min, and a processed one must still deduplicate then`);
  }
  const queue = new Queue<EntryData>(name, { connection, ...(prefix !== undefined && { prefix }) });
  // BullMQ reports connection trouble as 'error' events: without a listener, Node would throw them.
  queue.on('error', (error) => warn(`[svc-sdk] inbox: ${messageOf(error)}`));
  let checked: Promise<void> | undefined;
  /**
   * The durability check before the first store or worker, remembered once it passed. One that
   * failed is asked again by the next call: a Redis unreachable for a moment (restarting, or a
   * connection with `enableOfflineQueue: false` not yet ready) must not leave the inbox refusing
   * every delivery until the process restarts, and a refused configuration may be fixed meanwhile.
   */
  const ready = () =>
    (checked ??= (async () => {
      const client = await (queue as unknown as { backend: { client: Promise<{ info(): Promise<string> }> } }).backend.client;
      const verdict = durabilityOf(await client.info(), acceptNoPersistence);
      if (verdict.refuse) throw new NotDurableError(verdict.refuse);
      if (verdict.warn) warn(verdict.warn);
    })().catch((error: unknown) => {
      checked = undefined;
      throw error;
    }));

  return {
    async put(entry: InboxEntry) {
      await ready();
      await queue.add(
        entry.kind,
        { body: entry.body, receivedAt: entry.receivedAt },
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
      const { concurrency = 1, attempts = 10, backoff = { type: 'exponential', delay: 10_000 }, onOutcome, workerOptions } = processOptions;
      if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new RangeError(`[svc-sdk] inbox.process: concurrency must be a whole number ≥ 1 (got ${String(concurrency)})`);
      if (!(Number.isInteger(attempts) && attempts >= 1)) throw new RangeError(`[svc-sdk] inbox.process: attempts must be a whole number ≥ 1 (got ${String(attempts)})`);
      const delays = Backoffs.normalize(backoff);
      const tell = (outcome: InboxOutcome) => {
        try {
          onOutcome?.(outcome);
        } catch {
          // An observer that throws must not change a delivery's fate.
        }
      };
      const worker = new Worker<EntryData>(
        name,
        async (job: Job<EntryData>) => {
          const attempt = job.attemptsMade + 1;
          const deliveryId = deliveryIdOf(job.id ?? '');
          const event = readWebhookEvent(job.data.body);
          // Stored by a receiver that verified it, so only a hand-edited entry gets here: no retry can help.
          if (typeof event === 'string') throw new UnrecoverableError(`[svc-sdk] inbox: the stored body is not a delivery (${event})`);
          try {
            await on(event);
          } catch (error) {
            const dead = attempt >= attempts;
            tell({ deliveryId, kind: job.name, outcome: dead ? 'dead' : 'retried', attempt, error });
            if (dead) throw new UnrecoverableError(messageOf(error));
            throw error instanceof Error ? error : new Error(messageOf(error));
          }
          tell({ deliveryId, kind: job.name, outcome: 'processed', attempt });
        },
        {
          // A worker killed while running `on` leaves its job to the stalled check, which queues it
          // again; BullMQ's default fails it the second time, which would make a dead letter of a
          // delivery whose `on` never failed.
          maxStalledCount: 1000,
          ...workerOptions,
          connection,
          ...(prefix !== undefined && { prefix }),
          concurrency,
          autorun: false,
          settings: { backoffStrategy: (made, _type, error, job) => (delays && job ? (Backoffs.calculate(delays, made, error ?? new Error(''), job) ?? 0) : 0) },
        },
      );
      worker.on('error', (error) => warn(`[svc-sdk] inbox worker: ${messageOf(error)}`));
      let closed = false;
      let running = false;
      let retry: { timer: ReturnType<typeof setTimeout>; wake: () => void } | undefined;
      // Runs once Redis passed the durability check. A Redis that cannot be reached yet (a worker
      // started while it restarts) is asked again, 1 s later and then up to every 30 s, until it
      // answers or the worker is closed; a configuration that is refused stops the worker at once.
      const started = (async () => {
        for (let waitMs = 1000; ; waitMs = Math.min(2 * waitMs, 30_000)) {
          try {
            await ready();
            break;
          } catch (error) {
            if (error instanceof NotDurableError || closed) {
              warn(messageOf(error));
              throw error;
            }
            warn(`[svc-sdk] inbox worker: Redis could not be checked (${messageOf(error)}); trying again in ${waitMs / 1000} s`);
            await new Promise<void>((wake) => (retry = { timer: setTimeout(wake, waitMs), wake }));
            retry = undefined;
          }
        }
        if (closed) throw new Error('[svc-sdk] inbox worker: closed before it started');
        running = true;
        void worker.run().catch((error: unknown) => warn(`[svc-sdk] inbox worker stopped: ${messageOf(error)}`));
      })();
      // Awaited by ready(); a refusal is reported there and by the warning, not as an unhandled rejection.
      started.catch(() => undefined);
      return {
        ready: () => started,
        close: () => {
          closed = true;
          if (retry) {
            clearTimeout(retry.timer);
            retry.wake();
          }
          // A worker that never ran has nothing to finish: closing it while Redis is down (BullMQ then rejects) is not a failure.
          const closing = worker.close();
          return running ? closing : closing.catch(() => undefined);
        },
      };
    },

    async deadLetters() {
      const jobs = await queue.getFailed(0, -1);
      return jobs
        .filter((job): job is Job<EntryData> => job !== undefined && job.id !== undefined)
        .map((job) => ({
          deliveryId: deliveryIdOf(job.id ?? ''),
          kind: job.name,
          attempts: job.attemptsMade,
          lastError: job.failedReason,
          failedAt: job.finishedOn,
          receivedAt: job.data.receivedAt,
        }))
        .sort((a, b) => (a.failedAt ?? 0) - (b.failedAt ?? 0));
    },

    async replay(target) {
      const jobs =
        typeof target === 'string'
          ? [await queue.getJob(jobIdOf(target))]
          : target?.all === true
            ? await queue.getFailed(0, -1)
            : invalidTarget(target);
      const replayed: string[] = [];
      for (const job of jobs) {
        if (!job?.id) {
          if (typeof target === 'string') throw new Error(`[svc-sdk] inbox.replay: no delivery ${JSON.stringify(target)} in the inbox (processed ones are kept ${Math.round(keepCompletedMs / 3_600_000)} h)`);
          continue;
        }
        const state = await job.getState();
        // Waiting, delayed or running: it will run anyway; replaying it would run it twice.
        if (state !== 'failed' && state !== 'completed') continue;
        await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
        replayed.push(deliveryIdOf(job.id));
      }
      return replayed;
    },

    async stats() {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
      return {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        completed: counts.completed ?? 0,
        dead: counts.failed ?? 0,
      };
    },

    close: () => queue.close(),
  };
}

function invalidTarget(target: unknown): never {
  throw new TypeError(`[svc-sdk] inbox.replay: pass a delivery id or { all: true } (got ${typeof target})`);
}

/** An error's message, or what was thrown as text. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
