// The inbox's deliveries as an operator sees them: BullMQ jobs read into listings (id, kind, state,
// attempts, last error), filtered by state, kind and when they were stored, and replayed by the same
// filters. What a person can run by mistake is refused with the reason: an empty filter (it would
// replay everything: `{ all: true }` says so on purpose), a delivery still waiting or running.
import type { Job, Queue } from 'bullmq';
import { readWebhookEvent } from '../webhooks/events.js';
import { deliveryIdOf, jobIdOf } from './job-id.js';
import type { DeadLetter, InboxDelivery, InboxFilter, InboxListing, InboxListOptions, InboxReplayFilter, InboxStatus } from './types.js';

/** What each job holds: the body as received, when, and its digest; its name is the event kind, its id the delivery's. */
export interface EntryData {
  body: string;
  receivedAt: number;
  /** `digestOf(deliveryId, kind, body)`, checked before `on` runs (absent on entries of svc-sdk 0.4). */
  digest?: string;
}

/** BullMQ's names of the inbox's states. */
const BULLMQ_STATE: Record<InboxStatus, 'waiting' | 'active' | 'delayed' | 'completed' | 'failed'> = {
  waiting: 'waiting',
  active: 'active',
  delayed: 'delayed',
  completed: 'completed',
  dead: 'failed',
};
const STATUSES = Object.keys(BULLMQ_STATE) as InboxStatus[];
/** Jobs read per round trip while listing. */
const PAGE = 500;
/** BullMQ's reason for a job whose worker died more than `maxStalledCount` times. */
const STALLED_REASON = 'job stalled more than allowable limit';

/** A time of a filter (`since`, `until`) in ms since the epoch; a clear error for anything else. */
function timeOf(value: Date | number | string | undefined, field: string, operation: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : typeof value === 'string' && /^\d{4}-\d\d-\d\d/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new TypeError(`[svc-sdk] ${operation}: ${field} must be a Date, ms since the epoch or an ISO 8601 date such as 2026-01-31T14:00:00Z (got ${JSON.stringify(String(value))})`);
  return ms;
}

/** One value or several, as a list. */
function listOf<T>(value: T | readonly T[] | undefined): readonly T[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/** A filter read and checked once: the states to read, and a test for each job. */
interface Selection {
  statuses: readonly InboxStatus[];
  matches(job: Job<EntryData>): boolean;
}

/** `filter` checked (states known, kinds strings, times valid) into the states to read and a test. */
export function selectionOf(filter: InboxFilter, operation: string, defaultStatuses: readonly InboxStatus[] = STATUSES): Selection {
  const statuses = listOf(filter.status) ?? defaultStatuses;
  for (const status of statuses) {
    if (!STATUSES.includes(status)) throw new TypeError(`[svc-sdk] ${operation}: status must be ${STATUSES.join(', ')} (got ${JSON.stringify(status)})`);
  }
  const kinds = listOf(filter.kind);
  if (kinds?.some((kind) => typeof kind !== 'string')) throw new TypeError(`[svc-sdk] ${operation}: kind must be an event kind such as document.uploaded, or a list of them`);
  const since = timeOf(filter.since, 'since', operation);
  const until = timeOf(filter.until, 'until', operation);
  return {
    statuses,
    matches: (job) => {
      const received = job.data.receivedAt;
      return (kinds === undefined || kinds.includes(job.name)) && (since === undefined || received >= since) && (until === undefined || received < until);
    },
  };
}

/** Every job of `statuses` that `matches`, read a page at a time, oldest stored first. */
async function jobsOf(queue: Queue<EntryData>, selection: Selection): Promise<Array<{ job: Job<EntryData>; status: InboxStatus }>> {
  const found: Array<{ job: Job<EntryData>; status: InboxStatus }> = [];
  for (const status of selection.statuses) {
    for (let start = 0; ; start += PAGE) {
      // In BullMQ's own order: what is read is sorted by when it was stored below.
      const page = await queue.getJobs([BULLMQ_STATE[status]], start, start + PAGE - 1);
      for (const job of page) if (job?.id !== undefined && selection.matches(job)) found.push({ job, status });
      if (page.length < PAGE) break;
    }
  }
  return found.sort((a, b) => a.job.data.receivedAt - b.job.data.receivedAt);
}

/** A job's last error as an operator reads it: a dead worker said as such, not as BullMQ's words. */
function lastErrorOf(job: Job<EntryData>): string | undefined {
  const reason = job.failedReason || undefined;
  if (reason !== STALLED_REASON) return reason;
  return `[svc-sdk] inbox: the worker running it died ${job.stalledCounter} times (its process exited, or hung past lockDuration): a dead letter, not run again (maxWorkerDeaths)`;
}

/** A job as a listing. */
export function listingOf(job: Job<EntryData>, status: InboxStatus): InboxListing {
  return {
    // Every job read here has its id (jobsOf and showEntry skip any without, a worker's always has one).
    deliveryId: deliveryIdOf(job.id as string),
    kind: job.name,
    status,
    attempts: job.attemptsMade,
    lastError: lastErrorOf(job),
    receivedAt: job.data.receivedAt,
    finishedAt: job.finishedOn,
  };
}

/** A dead job as a dead letter. */
export function deadLetterOf(job: Job<EntryData>): DeadLetter {
  return {
    deliveryId: deliveryIdOf(job.id as string),
    kind: job.name,
    attempts: job.attemptsMade,
    lastError: lastErrorOf(job) ?? '',
    failedAt: job.finishedOn,
    receivedAt: job.data.receivedAt,
  };
}

/** The deliveries `options` selects, oldest stored first, at most `limit` (1000 by default). */
export async function listEntries(queue: Queue<EntryData>, options: InboxListOptions): Promise<InboxListing[]> {
  const limit = options.limit ?? 1000;
  if (!(Number.isInteger(limit) && limit >= 1)) throw new RangeError(`[svc-sdk] inbox.list: limit must be a whole number ≥ 1 (got ${String(limit)})`);
  const jobs = await jobsOf(queue, selectionOf(options, 'inbox.list'));
  return jobs.slice(0, limit).map(({ job, status }) => listingOf(job, status));
}

/** Every dead letter, oldest dead first. */
export async function deadLetters(queue: Queue<EntryData>): Promise<DeadLetter[]> {
  const jobs = await jobsOf(queue, { statuses: ['dead'], matches: () => true });
  return jobs.map(({ job }) => deadLetterOf(job)).sort((a, b) => (a.failedAt ?? 0) - (b.failedAt ?? 0));
}

/** The inbox's state of a job (BullMQ's `failed` read as `dead`), or `undefined` when it is in none of them. */
async function statusOf(job: Job<EntryData>): Promise<InboxStatus | undefined> {
  const state = await job.getState();
  if (state === 'failed') return 'dead';
  if (state === 'prioritized' || state === 'waiting-children') return 'waiting';
  return (STATUSES as readonly string[]).includes(state) ? (state as InboxStatus) : undefined;
}

/** One delivery in full, or `undefined` when the inbox has no delivery of that id. */
export async function showEntry(queue: Queue<EntryData>, deliveryId: string): Promise<InboxDelivery | undefined> {
  if (typeof deliveryId !== 'string' || !deliveryId) throw new TypeError('[svc-sdk] inbox.show: pass a delivery id (the delivery_id of the event)');
  const job = await queue.getJob(jobIdOf(deliveryId));
  if (!job?.id) return undefined;
  const status = (await statusOf(job)) ?? 'waiting';
  const event = readWebhookEvent(job.data.body);
  return { ...listingOf(job, status), body: job.data.body, event: typeof event === 'string' ? undefined : event, workerDeaths: job.stalledCounter ?? 0 };
}

/** What `replay` accepts, checked: one id, every dead letter, or a filter that narrows. */
export type ReplayTarget = string | { all: true; dryRun?: boolean } | InboxReplayFilter;

/**
 * Runs deliveries again, on purpose past deduplication. One id must be a dead letter or processed
 * (else an error says why: waiting, delayed and running ones run anyway, twice if replayed); a
 * filter replays the dead letters (or processed ones) it selects, skipping any that moved meanwhile.
 */
export async function replayEntries(queue: Queue<EntryData>, target: ReplayTarget, keptHours: number, resetDeaths: (job: Job<EntryData>) => Promise<void>): Promise<string[]> {
  if (typeof target === 'string') {
    // An empty id is looked up like any other: a receiver never stores one (delivery_id is non-empty), so it is unknown.
    const job = await queue.getJob(jobIdOf(target));
    if (!job?.id) throw new Error(`[svc-sdk] inbox.replay: no delivery ${JSON.stringify(target)} in the inbox (processed ones are kept ${keptHours} h)`);
    const status = await statusOf(job);
    if (status !== 'dead' && status !== 'completed') {
      throw new Error(
        `[svc-sdk] inbox.replay: delivery ${JSON.stringify(target)} is ${status === 'active' ? 'running now' : (status ?? 'not finished')}: it will finish anyway, and a replay would run it twice; replay it once it is processed or dead`,
      );
    }
    await resetDeaths(job);
    await job.retry(status === 'dead' ? 'failed' : 'completed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return [target];
  }
  if (typeof target !== 'object' || target === null) throw new TypeError(`[svc-sdk] inbox.replay: pass a delivery id, { all: true } or a filter ({ kind, since, until, status }) (got ${target === null ? 'null' : typeof target})`);
  const { dryRun = false, ...filter } = target as InboxReplayFilter & { all?: unknown };
  const all = (filter as { all?: unknown }).all;
  if (all !== undefined && all !== true) throw new TypeError('[svc-sdk] inbox.replay: all must be true (to replay every dead letter), or left out');
  const narrowed = filter.kind !== undefined || filter.since !== undefined || filter.until !== undefined || filter.status !== undefined;
  if (all === true && narrowed) throw new TypeError('[svc-sdk] inbox.replay: all: true replays every dead letter: pass it alone, or a filter without it');
  if (all !== true && !narrowed) {
    throw new TypeError('[svc-sdk] inbox.replay: an empty filter would replay every dead letter: pass { all: true } to mean that, or narrow it (kind, since, until, status)');
  }
  for (const status of listOf(filter.status) ?? []) {
    if (status !== 'dead' && status !== 'completed') throw new TypeError(`[svc-sdk] inbox.replay: status must be dead or completed (got ${JSON.stringify(status)}): waiting, delayed and running deliveries run anyway`);
  }
  // `{ all: true }` carries no filter (refused above with one): its selection is every dead letter, the default.
  const jobs = await jobsOf(queue, selectionOf(filter, 'inbox.replay', ['dead']));
  if (dryRun) return jobs.map(({ job }) => deliveryIdOf(job.id as string));
  const replayed: string[] = [];
  for (const { job, status } of jobs) {
    try {
      await resetDeaths(job);
      await job.retry(status === 'dead' ? 'failed' : 'completed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      replayed.push(deliveryIdOf(job.id as string));
    } catch {
      // Moved since it was read (replayed by someone else, removed): not this replay's to run.
    }
  }
  return replayed;
}
