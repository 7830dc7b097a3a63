// The emulator's rate-limit mode over real HTTP (emulator.listen), and a governed client against it.
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client, RateLimitError } from '../../src/index.node.js';
import { createEmulator } from '../../src/testing/index.js';

/** Scale of the emulator's rate-limit run: a minute's scale by default, the full one with SVC_FULL_SCALE=1. */
const FULL = process.env.SVC_FULL_SCALE === '1';
const CALLS = FULL ? 500 : 100;
const PER_SECOND = FULL ? 10 : 25;

describe("the emulator's rate-limit mode (a token bucket answering 429 with RateLimit headers)", () => {
  async function limitedEmulator(perSecond: number) {
    const emulator = createEmulator({ faults: { rateLimitPerSecond: perSecond } });
    const served = await emulator.listen(0);
    onTestFinished(() => served.close());
    return served.url;
  }

  it('answers a burst past its bucket 429, with Retry-After and the limits in RateLimit headers', async () => {
    const baseUrl = await limitedEmulator(10);
    const client = new Client({ apiKey: 'vdr_rate_test', baseUrl, maxRetries: 0 });
    const started = performance.now();
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => client.webhooks.list()));
    const refilled = Math.ceil(((performance.now() - started) / 1000) * 10);
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    // The bucket's 10, and at most the tokens refilled while the burst was arriving (connections take time to open).
    expect(outcomes.length - refused.length).toBeGreaterThanOrEqual(10);
    expect(outcomes.length - refused.length).toBeLessThanOrEqual(10 + refilled);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    const error = refused[0]!.reason as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.rateLimit).toMatchObject({ limit: 10, remaining: 0, windowMs: 1_000, policy: 'default', retryAfterMs: 1_000 });
  });

  it(`${CALLS} concurrent list calls with maxRequestsPerSecond ${PER_SECOND}: no failure, and the throughput within 10 % of the limit`, async () => {
    const baseUrl = await limitedEmulator(PER_SECOND);
    const client = new Client({ apiKey: 'vdr_rate_test', baseUrl, maxRequestsPerSecond: PER_SECOND, maxRetries: 0 });
    const started = performance.now();
    const outcomes = await Promise.allSettled(Array.from({ length: CALLS }, () => client.webhooks.list()));
    const seconds = (performance.now() - started) / 1000;
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    // N sends evenly spaced span N - 1 intervals; the first second's sends use the bucket's tokens.
    const throughput = (CALLS - 1) / seconds;
    expect(throughput).toBeGreaterThan(PER_SECOND * 0.9);
    expect(throughput).toBeLessThan(PER_SECOND * 1.1);
  }, 120_000);

  it('a 429 with Retry-After holds back every send of a governed client, not only the retry of the call refused', async () => {
    const baseUrl = await limitedEmulator(5);
    let refusedNow: () => void = () => {};
    const refusal = new Promise<void>((resolve) => (refusedNow = resolve));
    // The debug line of an attempt is written as its answer arrives: the moment the 429 is known.
    const logger = { debug: (line: string) => line.includes('→ 429') && refusedNow(), info() {}, warn() {}, error() {} };
    const client = new Client({ apiKey: 'vdr_rate_test', baseUrl, maxConcurrency: 50, maxRetries: 1, logLevel: 'debug', logger });
    // 6 at once against a bucket of 5: one refused with Retry-After 1, retried after it.
    const burst = Promise.allSettled(Array.from({ length: 6 }, () => client.webhooks.list()));
    await refusal;
    // A moment for ky to hand the refusal to the retry decision (a few turns of promises), far less than a token's 200 ms.
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Sent now, this call would find the bucket empty (and may not retry): it waits for the pause instead.
    await expect(client.webhooks.list({ maxRetries: 0 })).resolves.toEqual([]);
    expect((await burst).filter((outcome) => outcome.status === 'rejected')).toEqual([]);
  });
});
