import { DONE_TTL_MS, PROCESSING_TTL_MS, type ClaimResult, type DedupeStore } from './dedupe.js';

/** Options of `createMemoryDedupeStore`. */
export interface MemoryDedupeStoreOptions {
  /**
   * Most ids held at once, claims and processed ids together. Default 10 000. When full, expired
   * ids go first, then the oldest processed ones; a live claim is never dropped (a new delivery
   * then waits, answered 409, until one ends). Replay protection holds while fewer than this many
   * deliveries arrive per `ttlMs`.
   */
  maxEntries?: number | undefined;
  /** How long a processed id is remembered, in ms. Default 12 h 5 min (the replay window and its 5 minutes of clock skew). */
  ttlMs?: number | undefined;
  /** How long an unfinished claim blocks retries, in ms. Default 5 minutes. */
  processingTtlMs?: number | undefined;
}

/**
 * A `DedupeStore` in this process's memory, bounded in size and time: right for one receiver
 * process; a fleet, or more than `maxEntries` deliveries per 12 h, needs a shared store
 * (`createRedisDedupeStore`).
 *
 * @example
 * ```ts
 * const handler = createWebhookHandler({ secret, on, dedupe: createMemoryDedupeStore({ maxEntries: 50_000 }) });
 * ```
 */
export function createMemoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore {
  const { maxEntries = 10_000, ttlMs = DONE_TTL_MS, processingTtlMs = PROCESSING_TTL_MS } = options;
  if (!(maxEntries > 0 && ttlMs > 0 && processingTtlMs > 0)) {
    throw new TypeError('[svc-sdk] createMemoryDedupeStore: maxEntries, ttlMs and processingTtlMs must be positive numbers');
  }
  return memoryStore(maxEntries, ttlMs, processingTtlMs);
}

/**
 * The store itself, with settings already checked: `createWebhookHandler`'s default store comes
 * from here, so a handler does not carry the options check it never needs.
 */
export function memoryStore(maxEntries = 10_000, ttlMs = DONE_TTL_MS, processingTtlMs = PROCESSING_TTL_MS): DedupeStore {
  // id → expiry time. Each map has one TTL and every write re-inserts, so a map's insertion order
  // is its expiry order: the first entry expires first, and pruning stops at the first live one.
  const claims = new Map<string, number>();
  const done = new Map<string, number>();
  const prune = (map: Map<string, number>, now: number) => {
    for (const [id, expires] of map) {
      if (expires > now) break;
      map.delete(id);
    }
  };
  const put = (map: Map<string, number>, id: string, expires: number) => {
    map.delete(id);
    map.set(id, expires);
  };

  return {
    ttlMs,
    claim(id): ClaimResult {
      const now = Date.now();
      prune(claims, now);
      prune(done, now);
      if (done.has(id)) return 'done';
      if (claims.has(id)) return 'processing';
      // Full: the oldest processed id goes; if every entry is a live claim, this delivery waits
      // (409, the service retries) rather than evicting a claim whose retry would then run twice.
      if (claims.size >= maxEntries) return 'processing';
      if (claims.size + done.size >= maxEntries) done.delete(done.keys().next().value!);
      put(claims, id, now + processingTtlMs);
      return 'claimed';
    },
    complete(id) {
      claims.delete(id);
      put(done, id, Date.now() + ttlMs);
      if (claims.size + done.size > maxEntries) done.delete(done.keys().next().value!);
    },
    release(id) {
      claims.delete(id);
    },
  };
}
