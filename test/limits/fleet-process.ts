// One process of a fleet (bundled by esbuild and run by redis-limiter.test.ts): once its Redis is connected it
// prints "ready" and waits for "go" on stdin (so the fleet starts together), then makes `CALLS` list calls at once
// through a client whose limiter is shared through Redis; prints when it sent each attempt and how the calls ended.
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { Client, RateLimitError } from '../../src/index.node.js';
import { redisRateLimiter } from '../../src/limits/index.js';

const { BASE_URL, REDIS_PORT, CALLS, RATE, KEY } = process.env;
const redis = new Redis(Number(REDIS_PORT), '127.0.0.1');
await redis.ping();
/** The machine's monotonic clock in ms (CLOCK_MONOTONIC: one clock for every process of the machine). */
const now = () => Number(process.hrtime.bigint() / 1000n) / 1000;
const sent: number[] = [];
let throttled = 0;
const client = new Client({
  apiKey: 'vdr_fleet',
  baseUrl: BASE_URL,
  limiter: redisRateLimiter({ redis, requestsPerSecond: Number(RATE), key: KEY }),
  // A stalled process can send a window's permits late, into the next window's: the service may then refuse a few,
  // and their retries (each through the limiter again) still end in success.
  maxRetries: 10,
  hooks: {
    // Right after the limiter let the attempt go: never before its permit, on the machine's one clock.
    beforeRequest: () => void sent.push(now()),
    beforeRetry: ({ error }) => void (error instanceof RateLimitError && throttled++),
  },
});
process.stdout.write('ready\n');
process.stdin.setEncoding('utf8');
await once(process.stdin, 'data');
const outcomes = await Promise.allSettled(Array.from({ length: Number(CALLS) }, () => client.webhooks.list()));
const failures = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason));
process.stdout.write(`${JSON.stringify({ sent, throttled, failures })}\n`);
redis.disconnect();
process.stdin.destroy();
