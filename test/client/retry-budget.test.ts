import { StandardRetryStrategy } from '@smithy/util-retry';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { APITimeoutError, Client, InternalServerError, RateLimitError, RetryBudget, ValidationError, type RetryBudgetOptions } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();

/** One attempt's fate: an answer with that status, or no answer within the client's timeout. */
type Outcome = 200 | 429 | 503 | 'timeout';

// An answer slower than this (a loaded machine) would read as a timeout and change the trace: the replay runs again then.
const TIMEOUT_MS = 250;

/** The service of a replay: call `n` is `GET /trace/n`, its k-th attempt answered by `traces[n][k]` (200 past the end). */
function replayService(traces: readonly Outcome[][]) {
  const attempts = traces.map(() => 0);
  server.use(
    http.get(`${BASE_URL}/api/v1/trace/:call`, async ({ params }) => {
      const call = Number(params.call);
      const outcome = traces[call]![attempts[call]!++] ?? 200;
      if (outcome === 'timeout') return delay('infinite').then(() => HttpResponse.error());
      if (outcome === 200) return HttpResponse.json({ success: true, data: { call } });
      // Retry-After 0: the replay compares decisions, not waits.
      return HttpResponse.json({ error: 'busy' }, { status: outcome, headers: { 'retry-after': '0' } });
    }),
  );
  return attempts;
}

/** Replays the traces, one call after another, through a Client; returns the attempts each call made. */
async function replayThroughClient(traces: readonly Outcome[][], budget: RetryBudget): Promise<number[]> {
  const attempts = replayService(traces);
  const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 2, timeout: TIMEOUT_MS, retryBudget: budget });
  for (let call = 0; call < traces.length; call++) await client.request({ method: 'GET', path: `/trace/${call}` }).catch(() => undefined);
  return attempts;
}

/** AWS's error types, as smithy classifies these failures: 429 is throttling; a 503 and a timeout are transient. */
const ERROR_TYPE = { 429: 'THROTTLING', 503: 'TRANSIENT', timeout: 'TRANSIENT' } as const;

/** Replays the same traces through @smithy/util-retry's StandardRetryStrategy (3 attempts, no waits); returns its attempts per call. */
async function replayThroughSmithy(traces: readonly Outcome[][]): Promise<{ attempts: number[]; capacity: number }> {
  const strategy = new StandardRetryStrategy({ maxAttempts: 3, backoff: { computeNextBackoffDelay: () => 0, setDelayBase: () => {} } });
  const attempts: number[] = [];
  for (const trace of traces) {
    let token = await strategy.acquireInitialRetryToken('svc');
    let made = 1;
    for (let index = 0; ; index++) {
      const outcome = trace[index] ?? 200;
      if (outcome === 200) {
        strategy.recordSuccess(token);
        break;
      }
      try {
        token = await strategy.refreshRetryTokenForRetry(token, { errorType: ERROR_TYPE[outcome] });
        made++;
      } catch {
        break; // no token: the call fails with this attempt's error
      }
    }
    attempts.push(made);
  }
  return { attempts, capacity: strategy.getCapacity() };
}

/** A seeded generator (mulberry32), so a failing replay can be run again as it was. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An outage (503s then timeouts) that empties the bucket, throttling while it is low, a recovery, then a random mix. */
function traces(seed: number): Outcome[][] {
  const next = random(seed);
  const outcomes: readonly Outcome[] = [429, 503, 'timeout', 200];
  const pick = (): Outcome => outcomes[Math.floor(next() * outcomes.length)]!;
  return [
    ...Array.from({ length: 22 }, (): Outcome[] => [503, 503, 503]),
    ...Array.from({ length: 3 }, (): Outcome[] => ['timeout', 'timeout', 'timeout']),
    ...Array.from({ length: 10 }, (): Outcome[] => [429, 429, 200]),
    ...Array.from({ length: 40 }, (): Outcome[] => [200]),
    ...Array.from({ length: 8 }, (): Outcome[] => [429, 200]),
    ...Array.from({ length: 40 }, (): Outcome[] => [pick(), pick(), pick()]),
  ];
}

// @smithy/util-retry 4.6 (on @smithy/core 3.41) prices retries as AWS SDKs do since 2026: 5 after throttling,
// 14 after any other error. The client's budget takes those costs here, so the replay compares the mechanism
// (what is taken, when a retry is refused, what a success gives back); its own defaults are checked below.
const SMITHY_2026_COSTS: RetryBudgetOptions = { costs: { throttled: 5, server: 14, timeout: 14 } };

describe('retryBudget replays the traces of @smithy/util-retry StandardRetryStrategy with the same attempts', () => {
  it.each([1, 2])('429/503/timeout traces, seed %i: the same attempts per call and the same tokens left', { timeout: 60_000, retry: 2 }, async (seed) => {
    const replay = traces(seed);
    const expected = await replayThroughSmithy(replay);
    const budget = new RetryBudget(SMITHY_2026_COSTS);
    const attempts = await replayThroughClient(replay, budget);
    expect(attempts).toEqual(expected.attempts);
    expect(budget.available).toBe(expected.capacity);
    // The traces did empty the bucket: some failing call got no retry at all.
    expect(attempts.slice(0, 25)).toContain(1);
  });
});

describe('retryBudget (AWS standard mode: 500 tokens, a retry 5, a retried timeout 10, a success 1)', () => {
  const path = `${BASE_URL}/api/v1/svc/transactions`;
  const answers = (...outcomes: Outcome[]) => replayService([outcomes]);

  it('a 503 retry takes 5 and a timeout retry 10; a success gives back the last retry\'s cost, or 1, never past the capacity', async () => {
    const budget = new RetryBudget();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: TIMEOUT_MS, retryBudget: budget });
    answers(503, 'timeout', 200);
    await client.request({ method: 'GET', path: '/trace/0' });
    // 5 and 10 taken, the last (10) given back.
    expect(budget.available).toBe(495);
    server.use(http.get(path, () => HttpResponse.json([])));
    for (let call = 0; call < 7; call++) await client.transactions.list({ deal_id: 1 });
    expect(budget.available).toBe(500);
  });

  it('a retry is priced by why the attempt failed: throttled (429), server (503) or timeout (no connection)', async () => {
    const budget = new RetryBudget({ costs: { throttled: 7, server: 3, timeout: 11 } });
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, retryBudget: budget });
    replayService([[429, 429], [503, 503]]);
    await expect(client.request({ method: 'GET', path: '/trace/0' })).rejects.toBeInstanceOf(RateLimitError);
    expect(budget.available).toBe(493);
    await expect(client.request({ method: 'GET', path: '/trace/1' })).rejects.toBeInstanceOf(InternalServerError);
    expect(budget.available).toBe(490);
    // Nothing listens on port 9: a failed connection, priced as a timeout.
    const unreachable = new Client({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:9', maxRetries: 1, retryBudget: budget });
    server.use(http.get('http://127.0.0.1:9/api/v1/rooms', () => HttpResponse.error()));
    await expect(unreachable.request({ method: 'GET', path: '/rooms' })).rejects.toThrow();
    expect(budget.available).toBe(479);
  });

  it('an empty budget means no retry, and the error says so', async () => {
    const budget = new RetryBudget({ capacity: 12 });
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: TIMEOUT_MS, retryBudget: budget });
    const attempts = answers('timeout', 503, 503, 503);
    const error = await client.request({ method: 'GET', path: '/trace/0' }).catch((caught: unknown) => caught);
    // 12 → 2 after the timeout's retry; the 503 needs 5: the call fails with it, after 2 attempts.
    expect(attempts).toEqual([2]);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as Error).message).toBe(
      "GET /api/v1/trace/0 failed with 503: busy (not retried: the client's retry budget is empty (2 of 12 tokens left, a retry takes 5; successes refill it): " +
        'the service has failed often lately, so try again later, or pass a larger retryBudget)',
    );
    const timeouts = answers('timeout', 'timeout');
    const timedOut = await client.request({ method: 'GET', path: '/trace/0' }).catch((caught: unknown) => caught);
    expect(timeouts).toEqual([1]);
    expect(timedOut).toBeInstanceOf(APITimeoutError);
    expect((timedOut as Error).message).toMatch(/^GET \/api\/v1\/trace\/0 timed out after 250 ms: raise `timeout` or try again \(not retried: the client's retry budget is empty \(2 of 12 tokens left, a retry takes 10;/);
  });

  it('one RetryBudget shared by two clients: the retries of one drain the other', async () => {
    const budget = new RetryBudget({ capacity: 5 });
    const first = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, retryBudget: budget });
    const second = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, retryBudget: budget });
    const attempts = replayService([[429, 200], [429, 429]]);
    await first.request({ method: 'GET', path: '/trace/0' });
    // The success gave its 5 back: the second client can retry once, then the bucket is empty.
    await expect(second.request({ method: 'GET', path: '/trace/1' })).rejects.toBeInstanceOf(RateLimitError);
    expect(attempts).toEqual([2, 2]);
    expect(budget.available).toBe(0);
  });

  it('retryBudget: false retries as maxRetries allows, however often calls fail', async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 2, retryBudget: false });
    const attempts = replayService(Array.from({ length: 120 }, (): Outcome[] => [503, 503, 503]));
    for (let call = 0; call < 120; call++) await client.request({ method: 'GET', path: `/trace/${call}` }).catch(() => undefined);
    expect(new Set(attempts)).toEqual(new Set([3]));
  });

  it('a create is never retried, and takes nothing from the budget', async () => {
    const budget = new RetryBudget();
    let posts = 0;
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => (posts++, HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } }))));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, retryBudget: budget });
    await expect(client.rooms.create({ name: 'r', room_type: 'company_investment' })).rejects.toBeInstanceOf(InternalServerError);
    expect(posts).toBe(1);
    expect(budget.available).toBe(500);
  });

  it.each([
    [{ capacity: -1 }, 'retryBudget.capacity must be a whole number of tokens, 0 or more (default 500)'],
    [{ costs: { timeout: 0 } }, 'retryBudget.costs.timeout must be a whole number of tokens, 1 or more'],
    [{ costs: { throttle: 5 } }, 'retryBudget.costs.throttle is not a kind of retry: use throttled, server or timeout'],
    ['lots', 'retryBudget must be a RetryBudget, its options ({ capacity, costs, refill }) or false'],
  ])('new Client({ retryBudget: %j }) is a ValidationError naming the field', (retryBudget, message) => {
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, retryBudget: retryBudget as RetryBudgetOptions })).toThrow(ValidationError);
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, retryBudget: retryBudget as RetryBudgetOptions })).toThrow(message);
  });

  it('new RetryBudget() with a bad option is a ValidationError', () => {
    expect(() => new RetryBudget({ refill: 1.5 })).toThrow('[svc-sdk] new RetryBudget(): refill must be a whole number of tokens, 0 or more (default 1). Nothing was sent.');
    expect(() => new RetryBudget({ capacity: 2.5 })).toThrow('[svc-sdk] new RetryBudget(): capacity must be a whole number of tokens, 0 or more (default 500). Nothing was sent.');
    expect(() => new RetryBudget({ costs: null as never })).toThrow('new RetryBudget(): costs must be an object of throttled, server and timeout costs');
    expect(() => new RetryBudget({ costs: 'cheap' as never })).toThrow('new RetryBudget(): costs must be an object of throttled, server and timeout costs');
    expect(() => new RetryBudget({ costs: { server: -2 } })).toThrow('new RetryBudget(): costs.server must be a whole number of tokens, 1 or more');
    expect(() => new RetryBudget(null as never)).toThrow('new RetryBudget(): retryBudget must be a RetryBudget, its options ({ capacity, costs, refill }) or false');
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, retryBudget: [] as never })).toThrow('retryBudget must be a RetryBudget, its options');
  });

  /** The ValidationError `make` throws. */
  const refusal = (make: () => unknown): ValidationError => {
    try {
      make();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return error as ValidationError;
    }
    throw new Error('no ValidationError');
  };

  it("a client's bad retryBudget options: one issue each, at the option's path under retryBudget, its message naming it and its fix", () => {
    const options = { capacity: -1, refill: 0.5, costs: { throttled: 0, server: 2.5, timeout: undefined, throttle: 5 } } as unknown as RetryBudgetOptions;
    const error = refusal(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, retryBudget: options }));
    expect(error.issues).toEqual([
      { path: ['retryBudget', 'capacity'], message: 'retryBudget.capacity must be a whole number of tokens, 0 or more (default 500)' },
      { path: ['retryBudget', 'refill'], message: 'retryBudget.refill must be a whole number of tokens, 0 or more (default 1)' },
      { path: ['retryBudget', 'costs', 'throttled'], message: 'retryBudget.costs.throttled must be a whole number of tokens, 1 or more' },
      { path: ['retryBudget', 'costs', 'server'], message: 'retryBudget.costs.server must be a whole number of tokens, 1 or more' },
      { path: ['retryBudget', 'costs', 'throttle'], message: 'retryBudget.costs.throttle is not a kind of retry: use throttled, server or timeout' },
    ]);
    expect(refusal(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, retryBudget: { costs: 7 } as never })).issues).toEqual([
      { path: ['retryBudget', 'costs'], message: 'retryBudget.costs must be an object of throttled, server and timeout costs' },
    ]);
    expect(refusal(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, retryBudget: 3 as never })).issues).toEqual([
      { path: ['retryBudget'], message: 'retryBudget must be a RetryBudget, its options ({ capacity, costs, refill }) or false' },
    ]);
  });

  it("new RetryBudget()'s bad options: the same issues at the option's own path, the messages without a retryBudget. prefix", () => {
    const error = refusal(() => new RetryBudget({ capacity: '500', refill: -1, costs: { timeout: 1.5, retry: 1 } } as never));
    expect(error.issues).toEqual([
      { path: ['capacity'], message: 'capacity must be a whole number of tokens, 0 or more (default 500)' },
      { path: ['refill'], message: 'refill must be a whole number of tokens, 0 or more (default 1)' },
      { path: ['costs', 'timeout'], message: 'costs.timeout must be a whole number of tokens, 1 or more' },
      { path: ['costs', 'retry'], message: 'costs.retry is not a kind of retry: use throttled, server or timeout' },
    ]);
    expect(error.message).toBe(
      '[svc-sdk] new RetryBudget(): capacity must be a whole number of tokens, 0 or more (default 500); refill must be a whole number of tokens, 0 or more (default 1); ' +
        'costs.timeout must be a whole number of tokens, 1 or more; costs.retry is not a kind of retry: use throttled, server or timeout. Nothing was sent.',
    );
    expect(refusal(() => new RetryBudget({ costs: null } as never)).issues).toEqual([{ path: ['costs'], message: 'costs must be an object of throttled, server and timeout costs' }]);
    expect(refusal(() => new RetryBudget([] as never)).issues).toEqual([{ path: [], message: 'retryBudget must be a RetryBudget, its options ({ capacity, costs, refill }) or false' }]);
  });

  it('the edges of the options: 0 tokens and 0 refill, a cost of 1, a cost left undefined keeps its default', () => {
    const empty = new RetryBudget({ capacity: 0, refill: 0 });
    expect(empty.take('server')).toBeUndefined();
    empty.succeeded(undefined);
    expect(empty.available).toBe(0);
    const custom = new RetryBudget({ capacity: 20, refill: 3, costs: { server: 1, timeout: undefined } });
    expect([custom.costOf('throttled'), custom.costOf('server'), custom.costOf('timeout')]).toEqual([5, 1, 10]);
    expect(custom.take('timeout')).toBe(10);
    expect(custom.take('throttled')).toBe(5);
    // Exactly a retry's cost left: taken; then not even a cost of 1.
    expect(custom.take('throttled')).toBe(5);
    expect(custom.take('server')).toBeUndefined();
    expect(custom.available).toBe(0);
    custom.succeeded(undefined);
    expect(custom.available).toBe(3);
    custom.succeeded(10);
    expect(custom.available).toBe(13);
    custom.succeeded(10);
    expect(custom.available).toBe(20);
  });
});
