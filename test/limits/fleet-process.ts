// One process of a fleet (bundled by esbuild and run by redis-limiter.test.ts): `CALLS` list calls at once
// through a client whose limiter is shared through Redis; prints what it sent and how the calls ended.
import { Redis } from 'ioredis';
import { Client, RateLimitError } from '../../src/index.node.js';
import { redisRateLimiter } from '../../src/limits/index.js';

const { BASE_URL, REDIS_PORT, CALLS, RATE, KEY } = process.env;
const redis = new Redis(Number(REDIS_PORT), '127.0.0.1');
const sent: number[] = [];
let throttled = 0;
const client = new Client({
  apiKey: 'vdr_fleet',
  baseUrl: BASE_URL,
  limiter: redisRateLimiter({ redis, requestsPerSecond: Number(RATE), key: KEY }),
  maxRetries: 3,
  hooks: {
    // Right after the limiter let the attempt go: when it is sent, on the machine's one clock.
    beforeRequest: () => void sent.push(Date.now()),
    beforeRetry: ({ error }) => void (error instanceof RateLimitError && throttled++),
  },
});
const outcomes = await Promise.allSettled(Array.from({ length: Number(CALLS) }, () => client.webhooks.list()));
const failures = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason));
console.log(JSON.stringify({ sent, throttled, failures }));
redis.disconnect();
