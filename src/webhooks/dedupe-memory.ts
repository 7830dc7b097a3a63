import { DEFAULT_MAX_DEDUPE_ENTRIES, DONE_TTL_MS, PROCESSING_TTL_MS } from '../shared/limits.js';
import type { ClaimResult, DedupeStore } from './dedupe.js';


/** Options of `createMemoryDedupeStore`. */
export interface MemoryDedupeStoreOptions {
  /**
   * Most ids held at once, claims and processed ids together. Default 50 000 (about 5.5 MB of
   * UUID ids, measured: ~110 bytes each), one delivery every 0.9 s over 12 h. When full, expired
   * ids go first, then the oldest processed ones; a live claim is never dropped (a new delivery
   * then waits, answered 409, until one ends). Replay protection holds while fewer than this many
   * deliveries arrive per `ttlMs`.
   */
  maxEntries?: number | undefined;
  /** How long a processed id is remembered, in ms. Default 12 h 5 min (the replay window and its 5 minutes of clock skew). */
  ttlMs?: number | undefined;
  /** How long an unfinished claim blocks retries unless the handler renews it (it does while `on` runs), in ms. Default 5 minutes. */
  processingTtlMs?: number | undefined;
}

/**
 * A `DedupeStore` in this process's memory, bounded in size and time: right for one receiver
 * process; a fleet, or more than `maxEntries` deliveries per 12 h, needs a shared store
 * (`createRedisDedupeStore`).
 *
 * @param options How many ids it remembers (`maxEntries`), and for how long.
 *
 * @example
 * ```ts
 * const handler = createWebhookHandler({ secret, on, dedupe: createMemoryDedupeStore({ maxEntries: 50_000 }) });
 * ```
 */
export function createMemoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore {
  const { maxEntries = DEFAULT_MAX_DEDUPE_ENTRIES, ttlMs = DONE_TTL_MS, processingTtlMs = PROCESSING_TTL_MS } = options;
  if (!(maxEntries > 0 && ttlMs > 0 && processingTtlMs > 0)) {
    throw new TypeError('[svc-sdk] createMemoryDedupeStore: maxEntries, ttlMs and processingTtlMs must be positive numbers');
  }
  return memoryStore(maxEntries, ttlMs, processingTtlMs);
}

/**
 * The store itself, with settings already checked: `createWebhookHandler`'s default store comes
 * from here, so a handler does not carry the options check it never needs.
 */
export function memoryStore(maxEntries = DEFAULT_MAX_DEDUPE_ENTRIES, ttlMs = DONE_TTL_MS, processingTtlMs = PROCESSING_TTL_MS): DedupeStore {
  // Each id with its expiry time, in insertion order, which is expiry order (one TTL per Map).
  const claims = new Map<string, number>();
  const done = new Map<string, number>();
  const dropClaims = dropper(claims);
  const dropDone = dropper(done);
  let warned = false;
  const put = (ids: Map<string, number>, id: string, expires: number) => {
    // A Map keeps a key that is set again in its old place: delete it first so it moves to the end.
    ids.delete(id);
    ids.set(id, expires);
    // One too many: the oldest processed id goes before its time (the one just put, if it is the
    // only one), which weakens replay protection; the operator hears it once.
    if (claims.size + done.size > maxEntries) {
      dropDone(Infinity, 1);
      if (!warned) {
        warned = true;
        console.warn(
          `[svc-sdk] webhook dedupe: the memory store is full (${maxEntries} ids): a replay of a delivery it forgot would be processed again; raise maxEntries or use createRedisDedupeStore`,
        );
      }
    }
  };
  return {
    ttlMs,
    processingTtlMs,
    claim(id): ClaimResult {
      const now = Date.now();
      // Expired ids go first, whenever a delivery comes.
      dropClaims(now);
      dropDone(now);
      if (done.has(id)) return 'done';
      // Full of live claims: this delivery waits (409, the service retries) rather than evicting
      // a claim whose retry would then run twice.
      if (claims.has(id) || claims.size >= maxEntries) return 'processing';
      put(claims, id, now + processingTtlMs);
      return 'claimed';
    },
    complete(id) {
      const now = Date.now();
      claims.delete(id);
      dropDone(now);
      put(done, id, now + ttlMs);
    },
    release(id) {
      claims.delete(id);
    },
    renew(id) {
      // A claim held by a running on(): another processingTtlMs from now (moved to the end, so the
      // Map stays in expiry order). One that expired and went meanwhile is not brought back.
      if (claims.has(id)) put(claims, id, Date.now() + processingTtlMs);
    },
  };
}

/**
 * Drops ids that expired by `until` from a Map in expiry order, at most `count` of them, oldest
 * first. The oldest is found through ONE long-lived iterator, not a fresh one from the front: V8
 * leaves a hole where an entry was deleted and a fresh iterator skips every hole (~20 µs per drop
 * at 10 000 ids), while a live iterator survives deletes and rehashes, skips each hole once and
 * sees later insertions, so each drop is amortized O(1).
 */
function dropper(ids: Map<string, number>) {
  let oldest: MapIterator<string> | undefined;
  // The entry the iterator stopped at (live when seen): stale if deleted or put again since.
  let id: string | undefined;
  let expires = 0;
  let waits = 0;
  return (until: number, count = Infinity) => {
    while (count > 0) {
      if (id === undefined) {
        // A finished iterator never sees later insertions: start another (the Map is empty then).
        const next = (oldest ??= ids.keys()).next();
        if (next.done) return void (oldest = undefined);
        id = next.value;
        expires = ids.get(id)!;
      }
      if (ids.get(id) === expires) {
        if (expires > until) {
          // Stopped at a live entry (a claim whose worker crashed lives 5 minutes): V8 keeps every
          // table the Map outgrows meanwhile for the iterator (50 MB over 1 M deliveries), so it
          // goes every 1 000 waits; the next one starts at the front, where only holes lie before
          // this entry, and the Map's rehashes have cleared most of them by then.
          if (++waits > 1000) oldest = undefined;
          return;
        }
        ids.delete(id);
        count--;
      }
      id = undefined;
      waits = 0;
    }
  };
}
