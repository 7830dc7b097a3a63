import { DONE_TTL_MS, PROCESSING_TTL_MS, type ClaimResult, type DedupeStore } from './dedupe.js';

/** Options of `createMemoryDedupeStore`. */
export interface MemoryDedupeStoreOptions {
  /** Most ids remembered; the oldest are forgotten first. Default 10 000. */
  maxEntries?: number;
  /** How long a processed id is remembered, in ms. Default 12 h (the service retries for about 10.6 h). */
  ttlMs?: number;
  /** How long an unfinished claim blocks retries, in ms. Default 5 minutes. */
  processingTtlMs?: number;
}

/**
 * A `DedupeStore` in this process's memory, bounded in size and time: right for one receiver
 * process; a fleet needs a shared store (`createRedisDedupeStore`).
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
  // A Map iterates in insertion order, and every write re-inserts: its first key is the oldest.
  const entries = new Map<string, readonly [state: 'processing' | 'done', expires: number]>();

  const put = (id: string, state: 'processing' | 'done', ms: number) => {
    entries.delete(id);
    entries.set(id, [state, Date.now() + ms]);
    // One write adds at most one entry, so at most one (the oldest) goes.
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
  };

  return {
    claim(id): ClaimResult {
      const [state, expires] = entries.get(id) ?? [];
      if (state && expires! > Date.now()) return state;
      put(id, 'processing', processingTtlMs);
      return 'claimed';
    },
    complete(id) {
      put(id, 'done', ttlMs);
    },
    release(id) {
      entries.delete(id);
    },
  };
}
