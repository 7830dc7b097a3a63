import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, SvcError } from '../../src/index.node.js';
import { redisRateLimiter } from '../../src/limits/index.js';
import { createEmulator } from '../../src/testing/index.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from '../inbox/redis.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const RATE = 10;
const CALLS_EACH = 30;

reportMissingRedis();

describe.skipIf(!hasRedis)('redisRateLimiter (svc-sdk/limits): one rate for a fleet, through Redis', () => {
  let redis: TestRedis;
  let work: string;
  let script: string;
  beforeAll(async () => {
    redis = await startTestRedis();
    // The fleet's process, bundled from the sources (ioredis and rate-limiter-flexible stay the installed ones).
    work = mkdtempSync(join(root, '.tmp-bundle-limits-'));
    script = join(work, 'fleet-process.mjs');
    await build({
      entryPoints: [join(root, 'test/limits/fleet-process.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: script,
      external: ['ioredis', 'rate-limiter-flexible'],
      logLevel: 'error',
    });
  }, 60_000);
  afterAll(async () => {
    await redis?.stop();
    redis?.remove();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** The machine's monotonic clock in ms: the fleet processes read the same one (CLOCK_MONOTONIC). */
  const now = () => Number(process.hrtime.bigint() / 1000n) / 1000;

  interface FleetRun {
    sent: number[];
    throttled: number;
    failures: string[];
  }

  /** Starts one fleet process against `baseUrl`: `ready` once its Redis is connected, `go()` starts its calls, `done` is what it printed. */
  function fleetProcess(baseUrl: string, key: string): { ready: Promise<void>; go: () => void; done: Promise<FleetRun> } {
    const child = spawn(process.execPath, [script], {
      cwd: root,
      env: { ...process.env, BASE_URL: baseUrl, REDIS_PORT: String(redis.port), CALLS: String(CALLS_EACH), RATE: String(RATE), KEY: key },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let markReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      if (out.startsWith('ready\n')) markReady();
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    const done = new Promise<FleetRun>((resolve, reject) => {
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.slice('ready\n'.length)) as FleetRun) : reject(new Error(`fleet process exited with ${code}: ${err}`))));
    });
    return { ready: Promise.race([ready, done.then(() => undefined)]), go: () => child.stdin.end('go\n'), done };
  }

  it(`two processes sharing one Redis stay under ${RATE} requests a second together, and every call succeeds`, async () => {
    const emulator = createEmulator({ faults: { rateLimitPerSecond: RATE } });
    const served = await emulator.listen(0);
    try {
      const key = `fleet-${Date.now()}`;
      const fleet = [fleetProcess(served.url, key), fleetProcess(served.url, key)];
      await Promise.all(fleet.map((member) => member.ready));
      // Before either process can ask the limiter for its first permit.
      const started = now();
      for (const member of fleet) member.go();
      const runs = await Promise.all(fleet.map((member) => member.done));
      expect(runs.flatMap((run) => run.failures)).toEqual([]);
      const sent = runs.flatMap((run) => run.sent).sort((a, b) => a - b);
      expect(sent.length).toBeGreaterThanOrEqual(2 * CALLS_EACH);
      // Together under the limit by the limiter's own accounting: a window of the shared limit admits RATE attempts
      // and lasts one second (rate-limiter-flexible's fixed window, in Redis), the first window opens after
      // `started`, and each attempt is sent after its permit. So the fleet's n attempts need ceil(n / RATE) windows,
      // and the last is sent at least ceil(n / RATE) - 1 seconds after `started`. A loaded machine only sends later:
      // no timing margin. Limits per process instead of shared: each process's 30 fit in 3 windows, about 2.5 s.
      const windows = Math.ceil(sent.length / RATE);
      // 50 ms for Redis's clock (whole ms, wall time) against the monotonic one, over the run's few seconds.
      expect(sent.at(-1)! - started).toBeGreaterThanOrEqual((windows - 1) * 1000 - 50);
    } finally {
      await served.close();
    }
  }, 60_000);

  it('works with node-redis as with ioredis, and a Redis that fails is an SvcError of the call', async () => {
    const nodeRedis = createClient({ socket: { host: '127.0.0.1', port: redis.port } });
    await nodeRedis.connect();
    try {
      const limiter = redisRateLimiter({ redis: nodeRedis, requestsPerSecond: 2, key: `node-redis-${Date.now()}` });
      const signal = new AbortController().signal;
      const started = Date.now();
      for (let permit = 0; permit < 3; permit++) await limiter.acquire(signal);
      // Two permits a second: the third waits for the next second.
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    } finally {
      await nodeRedis.quit();
    }
    const broken = new Redis({ host: '127.0.0.1', port: 9, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const limiter = redisRateLimiter({ redis: broken, requestsPerSecond: 5 });
    const failed = (await limiter.acquire(new AbortController().signal).catch((error: unknown) => error)) as SvcError;
    expect(failed).toBeInstanceOf(SvcError);
    // Redis's own words, as its client said them (not "Error: …"), and the client's error as the cause.
    expect(failed.cause).toBeInstanceOf(Error);
    expect(failed.message).toBe(`[svc-sdk] the shared rate limit could not be read from Redis: ${(failed.cause as Error).message}`);
    expect((failed.cause as Error).message).not.toBe('');
    broken.disconnect();
  });

  it('spreads the permits of a second over it (none in a burst), in Redis under svc-sdk:limit:<key> (default svc-sdk)', async () => {
    const ioredis = new Redis(redis.port, '127.0.0.1');
    try {
      const key = `spread-${Date.now()}`;
      const signal = new AbortController().signal;
      const started = Date.now();
      const granted: number[] = [];
      await Promise.all(Array.from({ length: 4 }, () => redisRateLimiter({ redis: ioredis, requestsPerSecond: 4, key }).acquire(signal).then(() => granted.push(Date.now() - started))));
      // The first goes at once; the others wait a share of the second (rate-limiter-flexible's execEvenly): the last
      // about 500 ms. In a burst all four would go at once. A loaded machine only grants later.
      expect(Math.max(...granted)).toBeGreaterThanOrEqual(300);
      expect(await ioredis.get(`svc-sdk:limit:${key}`)).toBe('4');
      await redisRateLimiter({ redis: ioredis, requestsPerSecond: 1 }).acquire(signal);
      expect(await ioredis.get('svc-sdk:limit:svc-sdk')).toBe('1');
      // A refused permit waits for the next window, not in a loop on Redis: a second permit at 1 a second asks it
      // again once, maybe twice (in a loop: hundreds of times in that second).
      const processed = async () => Number(/total_commands_processed:(\d+)/.exec(await ioredis.info('stats'))![1]);
      const before = await processed();
      await redisRateLimiter({ redis: ioredis, requestsPerSecond: 1 }).acquire(signal);
      expect((await processed()) - before).toBeLessThan(20);
    } finally {
      ioredis.disconnect();
    }
  });

  it.each([
    [undefined, '[svc-sdk] redisRateLimiter: redis must be a connected ioredis or node-redis client'],
    [{ redis: undefined, requestsPerSecond: 5 }, '[svc-sdk] redisRateLimiter: redis must be a connected ioredis or node-redis client'],
    [{ redis: null, requestsPerSecond: 5 }, '[svc-sdk] redisRateLimiter: redis must be a connected ioredis or node-redis client'],
    [{ redis: {}, requestsPerSecond: 0.5 }, '[svc-sdk] redisRateLimiter: requestsPerSecond must be a whole number of requests a second, 1 or more'],
    [{ redis: {}, requestsPerSecond: 0 }, '[svc-sdk] redisRateLimiter: requestsPerSecond must be a whole number of requests a second, 1 or more'],
    [{ redis: {}, requestsPerSecond: 5, key: '' }, '[svc-sdk] redisRateLimiter: key must be a non-empty string'],
    [{ redis: {}, requestsPerSecond: 5, key: 7 }, '[svc-sdk] redisRateLimiter: key must be a non-empty string'],
  ])('redisRateLimiter(%j) throws an SvcError naming the field', (options, message) => {
    expect(() => redisRateLimiter(options as never)).toThrow(SvcError);
    expect(() => redisRateLimiter(options as never)).toThrow(message);
  });

  it('a client whose calls wait on the limiter past their timeout fails "while queued", naming the shared limiter', async () => {
    const limiter = { acquire: (signal: AbortSignal) => new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))) };
    const client = new Client({ apiKey: 'vdr_fleet', baseUrl: 'http://127.0.0.1:9', limiter, timeout: 50, maxRetries: 0 });
    await expect(client.webhooks.list()).rejects.toThrow("GET /api/v1/webhooks/ timed out after 50 ms while queued behind a shared limiter (nothing was sent)");
  });
});
