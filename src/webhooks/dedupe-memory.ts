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
  const claims = expiringIds();
  const done = expiringIds();
  let warned = false;
  // Room for one more: the oldest processed id goes before its time, which weakens replay
  // protection; the operator hears it once.
  const makeRoom = () => {
    done.drop(Infinity, 1);
    if (!warned) {
      warned = true;
      console.warn(
        `[svc-sdk] webhook dedupe: the memory store is full (${maxEntries} ids) and forgets processed deliveries early, so a replay of one would be processed again: raise maxEntries or use createRedisDedupeStore`,
      );
    }
  };
  return {
    ttlMs,
    claim(id): ClaimResult {
      const now = Date.now();
      // Expired ids go first, whenever a delivery comes.
      claims.drop(now);
      done.drop(now);
      if (done.ids.has(id)) return 'done';
      if (claims.ids.has(id)) return 'processing';
      // Full: the oldest processed id goes; if every entry is a live claim, this delivery waits
      // (409, the service retries) rather than evicting a claim whose retry would then run twice.
      if (claims.ids.size >= maxEntries) return 'processing';
      if (claims.ids.size + done.ids.size >= maxEntries) makeRoom();
      claims.put(id, now + processingTtlMs);
      return 'claimed';
    },
    complete(id) {
      const now = Date.now();
      claims.ids.delete(id);
      done.drop(now);
      done.put(id, now + ttlMs);
      if (claims.ids.size + done.ids.size > maxEntries) makeRoom();
    },
    release(id) {
      claims.ids.delete(id);
    },
  };
}

/**
 * Ids with their expiry times, all with one TTL: the Map finds an id; a ring in insertion order
 * (which is expiry order) finds the oldest. Not the Map's own order: V8 leaves a hole where an
 * entry was deleted, and iterating from the front skips every hole, which made dropping the
 * oldest of 10 000 ids cost ~20 µs instead of ~1. The ring is two fixed arrays that are rebuilt
 * only when full (twice as large when live ids fill half of it): no array per delivery and no
 * reallocation in a steady state, so the process's memory stays flat.
 */
function expiringIds() {
  const ids = new Map<string, number>();
  // An entry whose id was deleted or put again since is stale: skipped when it comes up.
  let keys: string[] = new Array<string>(1024).fill('');
  let times = new Float64Array(1024);
  let head = 0;
  let length = 0;
  return {
    ids,
    put(id: string, expires: number) {
      // A Map keeps a key that is set again in its old place: move it to the end, as in the ring.
      ids.delete(id);
      ids.set(id, expires);
      if (length < keys.length) {
        const slot = (head + length++) % keys.length;
        keys[slot] = id;
        times[slot] = expires;
        return;
      }
      // Full, mostly of stale entries: rebuild from the Map, in its order, the new id included.
      const size = ids.size * 2 > keys.length ? keys.length * 2 : keys.length;
      keys = new Array<string>(size).fill('');
      times = new Float64Array(size);
      head = 0;
      length = 0;
      for (const [key, time] of ids) {
        keys[length] = key;
        times[length++] = time;
      }
    },
    /** Drops ids that expired by `until`, at most `count` of them, oldest first. */
    drop(until: number, count = Infinity) {
      while (count > 0 && length > 0) {
        const id = keys[head]!;
        const expires = times[head]!;
        const live = ids.get(id) === expires;
        if (live && expires > until) break;
        keys[head] = ''; // the string can go
        head = (head + 1) % keys.length;
        length--;
        if (live) {
          ids.delete(id);
          count--;
        }
      }
    },
  };
}
