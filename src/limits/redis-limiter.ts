// A request rate shared by every process of a fleet, kept in Redis by rate-limiter-flexible (an
// optional peer, loaded by this entry alone): each process's client asks it before every attempt,
// so the fleet together stays under the service's limit, whatever the number of processes.
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { sleep } from '../shared/sleep.js';
import { SvcError } from '../shared/svc-error.js';
import type { SharedLimiter } from '../core/governor.js';

/** Settings of `redisRateLimiter`. */
export interface RedisRateLimiterOptions {
  /** A connected Redis client: ioredis, or node-redis (`createClient()`, connected). Yours: the limiter never closes it. */
  redis: unknown;
  /** Requests a second the whole fleet may send, together: a whole number, 1 or more. */
  requestsPerSecond: number;
  /** The name of the shared limit: processes with the same key (and Redis) share it. Default `'svc-sdk'`. */
  key?: string | undefined;
}

/**
 * A limit of `requestsPerSecond` shared through Redis by every process that uses the same `key`:
 * pass it as `new Client({ limiter })`. Each attempt takes one permit; without one it waits for the
 * next (its wait counts against the call's `timeout`). The permits of a second are spread over it
 * (rate-limiter-flexible's `execEvenly`), so the fleet does not send them in one burst.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { Client } from 'svc-sdk';
 * import { redisRateLimiter } from 'svc-sdk/limits';
 *
 * const limiter = redisRateLimiter({ redis: new Redis(process.env.REDIS_URL!), requestsPerSecond: 10 });
 * const client = new Client({ limiter }); // every process of the fleet: 10 a second together
 * ```
 *
 * @param options The Redis client (`redis`, ioredis or node-redis), the fleet's `requestsPerSecond`, and the `key` it shares.
 */
export function redisRateLimiter(options: RedisRateLimiterOptions): SharedLimiter {
  const { redis, requestsPerSecond, key = 'svc-sdk' } = options ?? ({} as RedisRateLimiterOptions);
  if (redis === null || typeof redis !== 'object') throw new SvcError('[svc-sdk] redisRateLimiter: redis must be a connected ioredis or node-redis client');
  if (!(Number.isSafeInteger(requestsPerSecond) && requestsPerSecond >= 1)) {
    throw new SvcError('[svc-sdk] redisRateLimiter: requestsPerSecond must be a whole number of requests a second, 1 or more');
  }
  if (typeof key !== 'string' || key === '') throw new SvcError('[svc-sdk] redisRateLimiter: key must be a non-empty string');
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    // ioredis has defineCommand; node-redis does not, and rate-limiter-flexible must be told.
    useRedisPackage: typeof (redis as { defineCommand?: unknown }).defineCommand !== 'function',
    keyPrefix: 'svc-sdk:limit',
    points: requestsPerSecond,
    duration: 1,
    execEvenly: true,
  });
  return {
    async acquire(signal: AbortSignal): Promise<void> {
      for (;;) {
        try {
          await limiter.consume(key, 1);
          return;
        } catch (refusal) {
          // A refusal is a RateLimiterRes (wait for the next second); anything else is Redis failing.
          if (!(refusal instanceof RateLimiterRes)) {
            throw new SvcError(`[svc-sdk] the shared rate limit could not be read from Redis: ${refusal instanceof Error ? refusal.message : String(refusal)}`, { cause: refusal });
          }
          await sleep(Math.max(1, refusal.msBeforeNext), signal);
        }
      }
    },
  };
}
