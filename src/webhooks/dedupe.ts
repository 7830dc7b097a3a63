/** What `DedupeStore.claim` found: a new delivery (now ours), one still being processed, or one already done. */
export type ClaimResult = 'claimed' | 'processing' | 'done';

/**
 * Where a webhook handler records `delivery_id`s, so a retried delivery is processed once.
 * Share one store across a fleet of receivers (see `createRedisDedupeStore`).
 *
 * `claim` must be atomic: of two concurrent claims of one id, exactly one gets `'claimed'`.
 */
export interface DedupeStore {
  /** Marks `id` as being processed when it is new; otherwise reports its state and changes nothing. */
  claim(id: string): ClaimResult | Promise<ClaimResult>;
  /** Marks `id` as processed: later deliveries of it are acknowledged without processing. */
  complete(id: string): void | Promise<void>;
  /** Forgets a claim whose processing failed, so the service's retry is processed. */
  release(id: string): void | Promise<void>;
}

/** How long a processed `delivery_id` is remembered: the service retries for about 10.6 h, so 12 h. */
export const DONE_TTL_MS = 43_200_000; // 12 h, as a literal: bundles keep a product of constants as written
/** How long a claim lasts when its worker never completes nor releases it (a crash): 5 minutes. */
export const PROCESSING_TTL_MS = 300_000; // 5 minutes
