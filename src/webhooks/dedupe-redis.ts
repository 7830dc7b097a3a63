import { DONE_TTL_MS, PROCESSING_TTL_MS } from '../shared/limits.js';
import type { ClaimResult, DedupeStore } from './dedupe.js';

/**
 * The part of a Redis client the store uses: a node-redis v4+ client (`createClient()`) or an
 * ioredis client (`new Redis()`). Typed loosely so that both libraries' overloads fit.
 */
export interface RedisClientLike {
  /**
   * `SET key value [NX] PX ms`: claims and completions.
   *
   * @param key The delivery id's key, under the store's `prefix`.
   * @param value The state to record: processing or done.
   * @param rest `NX`, `XX` and `PX ms`, as the client library spells them.
   */
  set(key: string, value: string, ...rest: never[]): Promise<unknown>;
  /**
   * `GET key`: the state of a delivery id.
   *
   * @param key The delivery id's key, under the store's `prefix`.
   */
  get(key: string): Promise<unknown>;
  /**
   * `DEL key`: releases a claim.
   *
   * @param key The delivery id's key, under the store's `prefix`.
   */
  del(key: string): Promise<unknown>;
}

/** Options of `createRedisDedupeStore`. */
export interface RedisDedupeStoreOptions {
  /** Prefix of every key. Default `'svc-sdk:webhook:'`. */
  prefix?: string | undefined;
  /** How long a processed id is remembered, in ms. Default 12 h 5 min (the replay window and its 5 minutes of clock skew). */
  ttlMs?: number | undefined;
  /** How long a claim lasts if its worker crashes before completing or releasing it, in ms. Default 5 minutes. */
  processingTtlMs?: number | undefined;
}

type SetNxPx = (key: string, value: string, ms: number) => Promise<unknown>;
type SetPx = (key: string, value: string, ms: number) => Promise<unknown>;

/**
 * A `DedupeStore` in Redis, shared by every receiver of a fleet. Pass a connected node-redis or
 * ioredis client; neither is a dependency of this SDK.
 *
 * A claim is `SET key processing NX PX <processingTtlMs>` (atomic; it expires if the worker
 * crashes), renewed while `on` runs by `SET key processing XX PX <processingTtlMs>`; completion is
 * `SET key done PX <ttlMs>`, release `DEL key`. Every call an answer waits for runs under the
 * handler's `storeTimeoutMs`, so the client needs no timeout of its own for the handler to answer.
 *
 * @param client A connected node-redis v4+ or ioredis client.
 * @param options The key `prefix`, and how long processed ids (`ttlMs`) and claims (`processingTtlMs`) last.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const handler = createWebhookHandler({ secret, on, dedupe: createRedisDedupeStore(redis) });
 * ```
 */
export function createRedisDedupeStore(client: RedisClientLike, options: RedisDedupeStoreOptions = {}): DedupeStore {
  if (!client || typeof client.set !== 'function' || typeof client.get !== 'function' || typeof client.del !== 'function') {
    throw new TypeError('[svc-sdk] createRedisDedupeStore: pass a connected node-redis (createClient) or ioredis (new Redis) client');
  }
  const prefix = options.prefix ?? 'svc-sdk:webhook:';
  const ttlMs = Math.ceil(options.ttlMs ?? DONE_TTL_MS);
  const processingTtlMs = Math.ceil(options.processingTtlMs ?? PROCESSING_TTL_MS);
  if (!(ttlMs > 0 && processingTtlMs > 0)) throw new TypeError('[svc-sdk] createRedisDedupeStore: ttlMs and processingTtlMs must be positive numbers');

  const redis = client as unknown as { set(...args: unknown[]): Promise<unknown>; isOpen?: unknown };
  // node-redis clients (v4+) have a boolean `isOpen` and take SET options as an object; ioredis
  // takes them as positional tokens.
  const isNodeRedis = typeof redis.isOpen === 'boolean';
  const setNx: SetNxPx = isNodeRedis
    ? (key, value, ms) => redis.set(key, value, { NX: true, PX: ms })
    : (key, value, ms) => redis.set(key, value, 'PX', ms, 'NX');
  const set: SetPx = isNodeRedis
    ? (key, value, ms) => redis.set(key, value, { PX: ms })
    : (key, value, ms) => redis.set(key, value, 'PX', ms);
  // Only if the key exists: a claim that expired meanwhile is not brought back.
  const setXx: SetPx = isNodeRedis
    ? (key, value, ms) => redis.set(key, value, { XX: true, PX: ms })
    : (key, value, ms) => redis.set(key, value, 'PX', ms, 'XX');

  /**
   * SET NX, then, if the key was taken, GET its state. A claim that expires between the two leaves
   * the key free: try again, `retries` times. The callback answers a new id synchronously (a
   * promise returned from it would cost the delivery two more turns).
   */
  const claimKey = (key: string, retries: number): Promise<ClaimResult> =>
    setNx(key, 'processing', processingTtlMs).then((set) => (set !== null ? 'claimed' : taken(key, retries)));
  const taken = async (key: string, retries: number): Promise<ClaimResult> => {
    const state = await client.get(key);
    if (state === 'done' || state === 'processing') return state;
    return retries > 0 ? claimKey(key, retries - 1) : 'processing';
  };

  return {
    ttlMs,
    processingTtlMs,
    claim(id): Promise<ClaimResult> {
      // A new id, the common case, costs one round trip and no async frame (a delivery's store calls are its hot path).
      return claimKey(prefix + id, 2);
    },
    async complete(id) {
      await set(prefix + id, 'done', ttlMs);
    },
    async renew(id) {
      // The lease of a running on(): another processingTtlMs from now. SET XX answers null when the
      // claim expired meanwhile (Redis paused or unreachable past processingTtlMs): lost.
      return (await setXx(prefix + id, 'processing', processingTtlMs)) !== null;
    },
    async release(id) {
      // Unconditional: if this claim already expired and another worker claimed the id, that claim
      // goes too, and a later retry may run alongside it; rare (processing outlived processingTtlMs)
      // and harmless next to losing the event.
      await client.del(prefix + id);
    },
  };
}
