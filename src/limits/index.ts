/**
 * `svc-sdk/limits`: limits shared by the processes of a fleet. `redisRateLimiter` keeps a request
 * rate in Redis (through the optional peer `rate-limiter-flexible`, loaded by this entry alone);
 * pass it as `new Client({ limiter })`.
 *
 * @module svc-sdk/limits
 */
export { redisRateLimiter, type RedisRateLimiterOptions } from './redis-limiter.js';
export type { SharedLimiter } from '../core/governor.js';
