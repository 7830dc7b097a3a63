// The types of svc-sdk/inbox, at the bottom of its imports: what a worker, the dead letters and the
// stats are made of. No runtime code here.
import type { WebhookEvent } from '../webhooks/events.js';

// The receiver's seam lives with the receiver (createWebhookHandler's `inbox` option); re-exported here.
export type { InboxEntry, WebhookInbox } from '../webhooks/types.js';

/** BullMQ's backoff: a fixed delay in ms, or `{ type: 'fixed' | 'exponential', delay, jitter }`. */
export type InboxBackoff = number | { type: 'fixed' | 'exponential'; delay?: number; jitter?: number };

/** What a worker tells about each delivery it ran: processed, to be retried, or dead (attempts spent). */
export interface InboxOutcome {
  readonly deliveryId: string;
  readonly kind: string;
  readonly outcome: 'processed' | 'retried' | 'dead';
  /** 1 for the first run of `on` for this delivery (since its last replay). */
  readonly attempt: number;
  /** What `on` threw, for `retried` and `dead`. */
  readonly error?: unknown;
}

/** Options of `inbox.process(on, options)`. */
export interface InboxProcessOptions {
  /** Deliveries run at once by this worker. Default 1. */
  concurrency?: number | undefined;
  /** Runs of `on` per delivery before it becomes a dead letter. Default 10. */
  attempts?: number | undefined;
  /** The wait before each retry. Default `{ type: 'exponential', delay: 10_000 }` (10 s, 20 s, 40 s, …). */
  backoff?: InboxBackoff | undefined;
  /**
   * Hears each delivery's outcome (for logs and metrics); what it throws is ignored.
   *
   * @param outcome The delivery's id and kind, its outcome (processed, retried or dead), the attempt and any error.
   */
  onOutcome?: ((outcome: InboxOutcome) => void) | undefined;
  /**
   * Hears each delivery that became a dead letter (its attempts spent, its worker dead too often, or
   * its stored body edited), with the delivery's context, for an alert; what it throws or rejects is ignored.
   *
   * @param letter The dead letter, and the delivery it holds.
   */
  onDeadLetter?: ((letter: DeadLetterNotice) => unknown) | undefined;
}

/** A dead letter as `onDeadLetter` hears it: the dead letter and the delivery it holds. */
export interface DeadLetterNotice extends DeadLetter {
  /** The stored delivery, typed; `undefined` when the stored body is not one (edited in Redis). */
  readonly event: WebhookEvent | undefined;
}

/**
 * The handler a worker runs: the same `on` as `createWebhookHandler`'s.
 *
 * @param event The stored event, verified when it was received.
 */
export type InboxHandler = (event: WebhookEvent) => unknown;

/** What a BullMQ worker tells its handler beside the event. */
export interface InboxRunContext {
  /** 1 for the first run of `on` for this delivery (since its last replay). */
  readonly attempt: number;
  /** Aborted when the worker gives up waiting for this run (`close()`'s grace period passed): stop, the delivery runs elsewhere. */
  readonly signal: AbortSignal;
}

/** The state of a delivery in the inbox: `dead` is a dead letter (BullMQ's `failed`). */
export type InboxStatus = 'waiting' | 'active' | 'delayed' | 'completed' | 'dead';

/** Which deliveries an operation is about; every field narrows, times compare with when the receiver stored it. */
export interface InboxFilter {
  /** One state or several. Default: every state (`list`), `dead` (`replay`). */
  readonly status?: InboxStatus | readonly InboxStatus[] | undefined;
  /** One event kind or several (`document.uploaded`). */
  readonly kind?: string | readonly string[] | undefined;
  /** Stored at or after: a `Date`, ms since the epoch or an ISO 8601 date. */
  readonly since?: Date | number | string | undefined;
  /** Stored before: a `Date`, ms since the epoch or an ISO 8601 date. */
  readonly until?: Date | number | string | undefined;
}

/** Options of `inbox.list`: a filter and how many at most. */
export interface InboxListOptions extends InboxFilter {
  /** The most entries returned (the oldest first). Default 1000. */
  readonly limit?: number | undefined;
}

/** `inbox.replay`'s filter form: which dead (or processed) deliveries to run again, or only how many (`dryRun`). */
export interface InboxReplayFilter extends InboxFilter {
  /** `dead` (the default) or `completed`: deliveries waiting, delayed or running will run anyway. */
  readonly status?: 'dead' | 'completed' | ReadonlyArray<'dead' | 'completed'> | undefined;
  /** Replays nothing and resolves with the delivery ids that would be replayed. */
  readonly dryRun?: boolean | undefined;
}

/** One delivery of the inbox, as `inbox.list` shows it. */
export interface InboxListing {
  readonly deliveryId: string;
  readonly kind: string;
  readonly status: InboxStatus;
  /** Runs of `on` made (since its last replay). */
  readonly attempts: number;
  /** The message of the last error, for a delivery retried or dead. */
  readonly lastError: string | undefined;
  /** When the receiver stored it (ms since the epoch). */
  readonly receivedAt: number;
  /** When it was processed or became a dead letter (ms since the epoch). */
  readonly finishedAt: number | undefined;
}

/** One delivery in full, as `inbox.show` gives it: its listing, its body as received and the event it holds. */
export interface InboxDelivery extends InboxListing {
  /** The body exactly as the receiver verified and stored it. */
  readonly body: string;
  /** The body read as a typed event; `undefined` when it is not one. */
  readonly event: WebhookEvent | undefined;
  /** How many times the worker running it died (its lock expired) since its last replay. */
  readonly workerDeaths: number;
}

/** A running worker of the inbox. */
export interface InboxWorker {
  /** Resolves once the worker runs: after the inbox's Redis checked out (rejects when it was refused). */
  ready(): Promise<void>;
  /**
   * Stops taking deliveries and resolves once the ones running have finished (for SIGTERM); a BullMQ
   * worker waits at most its `closeGraceMs`, then hands the ones still running back to the queue.
   */
  close(): Promise<void>;
}

/** A delivery whose attempts were spent: kept until replayed or removed, never expired. */
export interface DeadLetter {
  readonly deliveryId: string;
  readonly kind: string;
  /** Runs of `on` made. */
  readonly attempts: number;
  /** The message of the last error `on` threw. */
  readonly lastError: string;
  /** When it became a dead letter (ms since the epoch). */
  readonly failedAt: number | undefined;
  /** When the receiver stored it (ms since the epoch). */
  readonly receivedAt: number;
}

/** How many deliveries the inbox holds, by state. */
export interface InboxStats {
  /** Stored, waiting for a worker. */
  readonly waiting: number;
  /** Being run by a worker now. */
  readonly active: number;
  /** Waiting for their retry's backoff. */
  readonly delayed: number;
  /** Processed, kept for deduplication (at least 24 h). */
  readonly completed: number;
  /** Dead letters: attempts spent. */
  readonly dead: number;
}
