/** What `DedupeStore.claim` found: a new delivery (now ours), one still being processed, or one already done. */
export type ClaimResult = 'claimed' | 'processing' | 'done';

/**
 * Where a webhook handler records `delivery_id`s, so a retried delivery is processed once.
 * Share one store across a fleet of receivers (see `createRedisDedupeStore`).
 *
 * `claim` must be atomic: of two concurrent claims of one id, exactly one gets `'claimed'`.
 */
export interface DedupeStore {
  /**
   * Marks `id` as being processed when it is new; otherwise reports its state and changes nothing.
   *
   * @param id The delivery's `delivery_id`.
   */
  claim(id: string): ClaimResult | Promise<ClaimResult>;
  /**
   * Marks `id` as processed: later deliveries of it are acknowledged without processing.
   *
   * @param id The delivery's `delivery_id`.
   */
  complete(id: string): void | Promise<void>;
  /**
   * Forgets a claim whose processing failed, so the service's retry is processed.
   *
   * @param id The delivery's `delivery_id`.
   */
  release(id: string): void | Promise<void>;
  /**
   * Extends a claim that is still being processed by another `processingTtlMs` (optional): the
   * handler calls it while `on` runs, so a slow `on` keeps its claim and a retry never runs beside it.
   * `false` says the claim was gone (it expired): the handler reports it to `onError`.
   *
   * @param id The delivery's `delivery_id`.
   */
  renew?(id: string): void | boolean | Promise<void | boolean>;
  /** How long a claim lasts unless renewed, in ms, when the store knows it: the handler renews three times per period. */
  readonly processingTtlMs?: number | undefined;
  /**
   * How long a processed id is remembered, in ms, when the store knows it: `createWebhookHandler`
   * refuses a replay window (`tolerance` + 5 minutes) longer than this memory.
   */
  readonly ttlMs?: number | undefined;
}

/**
 * How long a processed `delivery_id` is remembered: 12 h 5 min, the default replay window (12 h,
 * over the service's ~10.6 h of retries) plus the 5 minutes a timestamp may be ahead, so that
 * every delivery the window lets in is still remembered when it is replayed.
 */
export const DONE_TTL_MS = 43_500_000; // as a literal: bundles keep a product of constants as written
/** How long a claim lasts when its worker never completes nor releases it (a crash): 5 minutes. */
export const PROCESSING_TTL_MS = 300_000; // 5 minutes
