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
}

/**
 * The handler a worker runs: the same `on` as `createWebhookHandler`'s.
 *
 * @param event The stored event, verified when it was received.
 */
export type InboxHandler = (event: WebhookEvent) => unknown;

/** A running worker of the inbox. */
export interface InboxWorker {
  /** Resolves once the worker runs: after the inbox's Redis checked out (rejects when it was refused). */
  ready(): Promise<void>;
  /** Stops taking deliveries and resolves once the ones running have finished (for SIGTERM). */
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
