// `inbox.process(on)`: a BullMQ worker that runs `on` for each stored delivery, and what keeps it
// from getting stuck or silent: a stored entry whose digest does not match never reaches `on`; a
// failing `on` is logged (rate-limited, redacted) and told to `onOutcome`; a dead letter is told to
// `onDeadLetter` with its delivery; a delivery whose worker dies `maxWorkerDeaths` times becomes a
// dead letter instead of killing workers forever; `close()` waits at most `closeGraceMs` and hands
// the deliveries still running back to the queue; a per-kind rate limit delays, never fails.
//
// BullMQ sets attempts and backoff per job, when it is added; here they are the worker's
// (`process(on, { attempts, backoff })`), so a job is added with attempts it never spends and a
// custom backoff, and the worker ends it with an UnrecoverableError on its last attempt.
import { setTimeout as sleep } from 'node:timers/promises';
import { Backoffs, DelayedError, Queue, UnrecoverableError, WaitingError, Worker, type BackoffOptions, type ConnectionOptions, type Job, type MinimalJob, type WorkerOptions } from 'bullmq';
import { readWebhookEvent, type WebhookEvent } from '../webhooks/events.js';
import { deadLetterOf, type EntryData } from './bullmq-entries.js';
import { messageOf } from './connection-trouble.js';
import { failureLog } from './failure-log.js';
import { tamperingOf } from './integrity.js';
import { deliveryIdOf } from './job-id.js';
import type { DeadLetterNotice, InboxOutcome, InboxProcessOptions, InboxRunContext, InboxWorker } from './types.js';

/** A per-kind rate limit: at most `max` deliveries of that kind started per `durationMs`, across every worker of the queue. */
export interface InboxRateLimit {
  readonly max: number;
  readonly durationMs: number;
}

/** Options of `inbox.process` with BullMQ's worker options for tuning (lock duration, stalled checks). */
export interface BullmqProcessOptions extends InboxProcessOptions {
  /** Passed to BullMQ's `Worker` as they are (`lockDuration`, `stalledInterval`, `limiter`, …). */
  workerOptions?: Omit<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'autorun' | 'settings'> | undefined;
  /**
   * How many times a delivery's worker may die while running it (the process exits, or hangs past
   * `lockDuration`) before the delivery becomes a dead letter instead of being run again. Default 3.
   */
  maxWorkerDeaths?: number | undefined;
  /** How long `close()` waits for the deliveries running; then it aborts them (`signal`) and hands them back to the queue. Default 10 000 ms. */
  closeGraceMs?: number | undefined;
  /** Per event kind, at most `max` deliveries started per `durationMs` (shared by every worker); the others wait, no attempt spent. */
  rateLimit?: Readonly<Record<string, InboxRateLimit>> | undefined;
  /** The least time between two lines about failing deliveries (the ones between are counted). Default 10 000 ms; 0 logs each. */
  failureLogIntervalMs?: number | undefined;
}

/**
 * The handler a BullMQ worker runs: `on(event)`, told its attempt and a signal aborted when the worker gives up on the run.
 *
 * @param event The verified delivery's event.
 * @param context Its attempt and a signal aborted when the worker gives up on the run (a close past its grace).
 */
export type BullmqInboxHandler = (event: WebhookEvent, context: InboxRunContext) => unknown;

/** What a worker needs of its inbox. */
export interface WorkerInboxParts {
  readonly name: string;
  readonly connection: ConnectionOptions;
  readonly prefix: string;
  readonly queue: Queue<EntryData>;
  /** The durability check: the last one if it passed recently (or `fresh` is false), else asked now. */
  readonly ready: (fresh?: boolean) => Promise<void>;
  readonly durabilityCheckMs: number;
  readonly warn: (line: string) => void;
  readonly integrityKey: string | undefined;
  /** Whether `error` is the durability check's refusal (no retry helps). */
  readonly isRefusal: (error: unknown) => boolean;
}

/** What is left of a run when `close()`'s grace period passes: abort it and let it go. */
interface Run {
  readonly controller: AbortController;
  readonly abandon: () => void;
}

/** Thrown (never seen by users) into a run `close()` gave up waiting for. */
const ABANDONED = Symbol('abandoned');
/** Counts a kind's starts in a window, the first of them setting the window's expiry: one round trip, atomic. */
const COUNT_START = "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n";

function wholeAtLeast(value: number, least: number, field: string): void {
  if (!(Number.isInteger(value) && value >= least)) throw new RangeError(`[svc-sdk] inbox.process: ${field} must be a whole number ≥ ${least} (got ${String(value)})`);
}

/** Starts a worker of the inbox `parts` running `on`. */
export function startWorker(parts: WorkerInboxParts, on: BullmqInboxHandler, options: BullmqProcessOptions): InboxWorker {
  const { concurrency = 1, attempts = 10, backoff = { type: 'exponential', delay: 10_000 }, onOutcome, onDeadLetter, workerOptions } = options;
  const { maxWorkerDeaths = 3, closeGraceMs = 10_000, rateLimit, failureLogIntervalMs = 10_000 } = options;
  wholeAtLeast(concurrency, 1, 'concurrency');
  wholeAtLeast(attempts, 1, 'attempts');
  wholeAtLeast(maxWorkerDeaths, 1, 'maxWorkerDeaths');
  wholeAtLeast(closeGraceMs, 0, 'closeGraceMs');
  wholeAtLeast(failureLogIntervalMs, 0, 'failureLogIntervalMs');
  for (const [kind, limit] of Object.entries(rateLimit ?? {})) {
    if (!(Number.isInteger(limit?.max) && limit.max >= 1 && Number.isInteger(limit.durationMs) && limit.durationMs >= 1)) {
      throw new RangeError(`[svc-sdk] inbox.process: rateLimit[${JSON.stringify(kind)}] must be { max, durationMs }, whole numbers ≥ 1`);
    }
  }
  const { name, connection, prefix, queue, warn, integrityKey } = parts;
  const delays = Backoffs.normalize(backoff);
  const log = failureLog(warn, failureLogIntervalMs);
  // Connection trouble repeats each reconnect: one line per interval as well.
  const troubleLog = failureLog(warn, Math.max(failureLogIntervalMs, 1000));
  const tell = (outcome: InboxOutcome) => {
    try {
      onOutcome?.(outcome);
    } catch {
      // An observer that throws must not change a delivery's fate.
    }
  };
  const runs = new Set<Run>();
  /** Errors `on` threw on its last attempt: logged where they were thrown, not again when BullMQ reports the failure. */
  const toldDead = new WeakSet<Error>();

  /** The delay before a delivery of `kind` may start under its rate limit: 0 now, else until its window ends. */
  const rateDelay = async (kind: string): Promise<number> => {
    const limit = rateLimit?.[kind];
    if (!limit) return 0;
    const now = Date.now();
    const window = Math.floor(now / limit.durationMs);
    const client = await (queue as unknown as { backend: { client: Promise<{ eval(script: string, keys: number, ...args: Array<string | number>): Promise<unknown> }> } }).backend.client;
    const key = `${prefix}:${name}:svc-sdk-rate:${kind}:${window}`;
    const started = Number(await client.eval(COUNT_START, 1, key, limit.durationMs * 2));
    return started <= limit.max ? 0 : (window + 1) * limit.durationMs - now;
  };

  const worker = new Worker<EntryData>(
    name,
    async (job: Job<EntryData>, token?: string) => {
      const attempt = job.attemptsMade + 1;
      // A job a worker runs has its id (the inbox gives each one: its delivery's).
      const deliveryId = deliveryIdOf(job.id as string);
      const tampered = tamperingOf(deliveryId, job.name, job.data.body, job.data.digest, integrityKey);
      if (tampered) throw new UnrecoverableError(`[svc-sdk] inbox: delivery ${deliveryId} not run: ${tampered}`);
      const event = readWebhookEvent(job.data.body);
      // Stored by a receiver that verified it, so only a hand-edited entry gets here: no retry can help.
      if (typeof event === 'string') throw new UnrecoverableError(`[svc-sdk] inbox: the stored body is not a delivery (${event})`);
      if (event.delivery_id !== deliveryId || event.event !== job.name) {
        throw new UnrecoverableError(`[svc-sdk] inbox: delivery ${deliveryId} not run: its body is delivery ${event.delivery_id} (${event.event}), stored under another id or kind`);
      }
      const wait = await rateDelay(job.name);
      if (wait > 0) {
        // Over its kind's limit: back to the delayed set until the window ends, no attempt spent.
        await job.moveToDelayed(Date.now() + wait, token);
        throw new DelayedError();
      }
      const controller = new AbortController();
      let abandon!: () => void;
      const abandoned = new Promise<never>((_resolve, reject) => (abandon = () => reject(ABANDONED)));
      const run: Run = { controller, abandon };
      runs.add(run);
      try {
        await Promise.race([Promise.resolve().then(() => on(event, { attempt, signal: controller.signal })), abandoned]);
      } catch (error) {
        if (error === ABANDONED) {
          // close() stopped waiting: the delivery goes back to the queue for another worker, no attempt spent.
          await job.moveToWait(token);
          throw new WaitingError();
        }
        const dead = attempt >= attempts;
        tell({ deliveryId, kind: job.name, outcome: dead ? 'dead' : 'retried', attempt, error });
        log.report(
          `[svc-sdk] inbox worker: delivery ${deliveryId} (${job.name}) failed on attempt ${attempt} of ${attempts}: ${messageOf(error)}` +
            (dead ? '; now a dead letter (svc-sdk inbox replay when fixed)' : '; retried later'),
        );
        if (dead) {
          const final = new UnrecoverableError(messageOf(error));
          toldDead.add(final);
          throw final;
        }
        throw error instanceof Error ? error : new Error(messageOf(error));
      } finally {
        runs.delete(run);
      }
      tell({ deliveryId, kind: job.name, outcome: 'processed', attempt });
    },
    {
      // A worker killed while running `on` leaves its job to the stalled check, which queues it
      // again; after `maxWorkerDeaths` deaths the next worker makes it a dead letter instead of
      // running it: a delivery whose `on` kills its process must not kill every worker forever.
      maxStalledCount: maxWorkerDeaths - 1,
      ...workerOptions,
      connection,
      prefix,
      concurrency,
      autorun: false,
      // BullMQ gives every argument (its types say optional); Backoffs.calculate answers undefined for no backoff itself.
      settings: { backoffStrategy: (made, _type, error, job) => Backoffs.calculate(delays as BackoffOptions, made, error as Error, job as MinimalJob) ?? 0 },
    },
  );
  worker.on('error', (error) => troubleLog.report(`[svc-sdk] inbox worker: ${messageOf(error)}`));
  worker.on('failed', (job, error) => {
    if (!job || error.name !== 'UnrecoverableError') return;
    // Dead without `on` having thrown it: its body edited, or its worker dead too often.
    if (!toldDead.has(error)) log.report(`[svc-sdk] inbox worker: delivery ${deliveryIdOf(job.id as string)} (${job.name}) is now a dead letter: ${deadLetterOf(job).lastError}`);
    if (!onDeadLetter) return;
    const event = readWebhookEvent(job.data.body);
    const notice: DeadLetterNotice = { ...deadLetterOf(job), event: typeof event === 'string' ? undefined : event };
    try {
      void Promise.resolve(onDeadLetter(notice)).catch(() => undefined);
    } catch {
      // An alert that fails must not change a delivery's fate.
    }
  });

  // Aborted by close(): it ends a wait for Redis at once (its timer with it).
  const closed = new AbortController();
  let recheck: ReturnType<typeof setInterval> | undefined;
  // Runs once Redis passed the durability check. A Redis that cannot be reached yet (a worker
  // started while it restarts) is asked again, 1 s later and then up to every 30 s, until it
  // answers or the worker is closed; a configuration that is refused stops the worker at once.
  const started = (async () => {
    for (let waitMs = 1000; ; waitMs = Math.min(2 * waitMs, 30_000)) {
      try {
        await parts.ready();
        break;
      } catch (error) {
        if (parts.isRefusal(error) || closed.signal.aborted) {
          warn(messageOf(error));
          throw error;
        }
        warn(`[svc-sdk] inbox worker: Redis could not be checked (${messageOf(error)}); trying again in ${waitMs / 1000} s`);
        await sleep(waitMs, undefined, { signal: closed.signal }).catch(() => undefined);
      }
    }
    if (closed.signal.aborted) throw new Error('[svc-sdk] inbox worker: closed before it started');
    // Asked again while running: a policy switched to evicting keys is said (rate-limited). The
    // worker keeps draining what is stored: stopping would not keep those deliveries from eviction.
    recheck = setInterval(() => void parts.ready(true).catch((error: unknown) => troubleLog.report(messageOf(error))), parts.durabilityCheckMs);
    void worker.run().catch((error: unknown) => warn(`[svc-sdk] inbox worker stopped: ${messageOf(error)}`));
  })();
  // Awaited by ready(); a refusal is reported there and by the warning, not as an unhandled rejection.
  started.catch(() => undefined);

  let closing: Promise<void> | undefined;
  const close = async () => {
    closed.abort();
    clearInterval(recheck);
    // BullMQ's close() resolves whatever Redis does (what fails is emitted as 'error'), for a worker that never ran as well.
    const stopping = worker.close();
    const grace = setTimeout(() => {
      for (const run of runs) {
        run.controller.abort(new Error('[svc-sdk] inbox worker: closed, closeGraceMs passed: this delivery runs again on another worker'));
        run.abandon();
      }
    }, closeGraceMs);
    try {
      await stopping;
    } finally {
      clearTimeout(grace);
      log.flush();
      troubleLog.flush();
    }
  };
  return {
    ready: () => started,
    close: () => (closing ??= close()),
  };
}
