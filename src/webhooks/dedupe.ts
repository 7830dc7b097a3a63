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
