import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { Client, ConflictError, InternalServerError, RateLimitError, type RateLimitInfo } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();
const ROOMS = `${BASE_URL}/api/v1/rooms`;
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1 });

const none: RateLimitInfo = { limit: undefined, remaining: undefined, resetMs: undefined, windowMs: undefined, policy: undefined, retryAfterMs: undefined };

/** The `rateLimit` of `withResponse()` for an answer with these headers. */
async function rateLimitOfAnswer(headers: Record<string, string>): Promise<RateLimitInfo | undefined> {
  server.use(http.get(ROOMS, () => HttpResponse.json({ success: true, data: [] }, { headers })));
  return (await client.request({ method: 'GET', path: '/rooms' }).withResponse()).rateLimit;
}

describe('rateLimit on every response (withResponse)', () => {
  it.each<[string, Record<string, string>, RateLimitInfo]>([
    [
      'the IETF draft (08 on): RateLimit and RateLimit-Policy',
      { RateLimit: '"default";r=50;t=30', 'RateLimit-Policy': '"default";q=100;w=60' },
      { ...none, limit: 100, remaining: 50, resetMs: 30_000, windowMs: 60_000, policy: 'default' },
    ],
    [
      'several policies: the one with the fewest requests left binds',
      { RateLimit: '"day";r=900;t=3600, "burst";r=0;t=5', 'RateLimit-Policy': '"burst";q=10;w=5, "day";q=1000;w=86400' },
      { ...none, limit: 10, remaining: 0, resetMs: 5_000, windowMs: 5_000, policy: 'burst' },
    ],
    [
      'a policy name with a comma in its quotes',
      { RateLimit: '"a,b";r=3;t=2', 'RateLimit-Policy': '"a,b";q=9;w=10' },
      { ...none, limit: 9, remaining: 3, resetMs: 2_000, windowMs: 10_000, policy: 'a,b' },
    ],
    [
      'a policy name with an escaped quote and a comma in its quotes, after an empty member',
      { RateLimit: ', "a\\",b";r=3;t=2', 'RateLimit-Policy': '"a\\",b";q=9;w=10,' },
      { ...none, limit: 9, remaining: 3, resetMs: 2_000, windowMs: 10_000, policy: 'a",b' },
    ],
    [
      'the draft 03-07 dictionary',
      { RateLimit: 'limit=100, remaining=4, reset=7', 'RateLimit-Policy': '100;w=60' },
      { ...none, limit: 100, remaining: 4, resetMs: 7_000, windowMs: 60_000 },
    ],
    ['RateLimit-Limit, -Remaining, -Reset', { 'RateLimit-Limit': '60', 'RateLimit-Remaining': '59', 'RateLimit-Reset': '10' }, { ...none, limit: 60, remaining: 59, resetMs: 10_000 }],
    ['X-RateLimit-* with a reset in seconds', { 'X-RateLimit-Limit': '5000', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '12' }, { ...none, limit: 5000, remaining: 0, resetMs: 12_000 }],
    ['retry-after-ms before Retry-After', { 'retry-after-ms': '250.5', 'Retry-After': '30' }, { ...none, retryAfterMs: 250.5 }],
    ['Retry-After in seconds', { 'Retry-After': '3' }, { ...none, retryAfterMs: 3_000 }],
    ['values with spaces around them (Headers trims them)', { 'retry-after-ms': ' 20 ', 'X-RateLimit-Limit': ' 7 ' }, { ...none, limit: 7, retryAfterMs: 20 }],
    [
      'two policies with as few requests left: the first named binds',
      { RateLimit: '"a";r=1;t=1, "b";r=1;t=2', 'RateLimit-Policy': '"a";q=5;w=1, "b";q=50;w=10' },
      { ...none, limit: 5, remaining: 1, resetMs: 1_000, windowMs: 1_000, policy: 'a' },
    ],
    ['RateLimit-Policy alone: its first policy (an empty member is none)', { 'RateLimit-Policy': ', "p";q=10;w=60, "q";q=1;w=1' }, { ...none, limit: 10, windowMs: 60_000, policy: 'p' }],
    [
      'a stray backslash outside quotes, and a member starting with "=", are no part of a policy',
      { RateLimit: 'junk\\, =5, "p";r=1;t=1' },
      { ...none, remaining: 1, resetMs: 1_000, policy: 'p' },
    ],
    ['RateLimit alone: its policy named, with no quota', { RateLimit: '"p";r=4;t=2' }, { ...none, remaining: 4, resetMs: 2_000, policy: 'p' }],
    ['a policy with only its window', { 'RateLimit-Policy': '"p";w=60' }, { ...none, windowMs: 60_000, policy: 'p' }],
    ['a quoted name holding "="', { RateLimit: '"a=b";r=2;t=1', 'RateLimit-Policy': '"a=b";q=3' }, { ...none, limit: 3, remaining: 2, resetMs: 1_000, policy: 'a=b' }],
    ['a lone quote as a name is kept as sent', { 'RateLimit-Policy': '"', 'X-RateLimit-Limit': '5' }, { ...none, limit: 5, policy: '"' }],
    [
      'parameter and key names in any case; a parameter without a value sets nothing',
      { RateLimit: '"Burst";R=2;T=3;rr', 'RateLimit-Policy': '"Burst";Q=4;W=5' },
      { ...none, limit: 4, remaining: 2, resetMs: 3_000, windowMs: 5_000, policy: 'Burst' },
    ],
    ['an empty quoted policy name', { RateLimit: '"";r=1;t=1', 'RateLimit-Policy': '"";q=2' }, { ...none, limit: 2, remaining: 1, resetMs: 1_000, policy: '' }],
    ['the draft 03-07 dictionary, keys in any case and spaced', { RateLimit: 'Limit =10, REMAINING=0, reset=2' }, { ...none, limit: 10, remaining: 0, resetMs: 2_000 }],
    ['a number with a unit or a sign is no number', { 'X-RateLimit-Limit': '12s', 'X-RateLimit-Remaining': '-1', 'RateLimit-Reset': '3' }, { ...none, resetMs: 3_000 }],
    ['a reset as a Unix time already past, or Retry-After as a past date: 0', { 'X-RateLimit-Reset': '1704067200', 'Retry-After': 'Mon, 01 Jan 2024 00:00:00 GMT' }, { ...none, resetMs: 0, retryAfterMs: 0 }],
    [
      'spaces after the semicolons and around the commas (RFC 9651 allows them)',
      { RateLimit: '"a"; r=1; t=2 , "b"; r=5; t=9', 'RateLimit-Policy': '"a"; q=10; w=20 ,  "b";q=50' },
      { ...none, limit: 10, remaining: 1, resetMs: 2_000, windowMs: 20_000, policy: 'a' },
    ],
    ['a member of only spaces is none: the first policy is the one after it', { 'RateLimit-Policy': ',  , "p";q=10;w=60' }, { ...none, limit: 10, windowMs: 60_000, policy: 'p' }],
    [
      'a quoted name holding "=" after a space, as a later member of the list',
      { RateLimit: '"x";r=9;t=1, "a=b";r=2;t=3', 'RateLimit-Policy': '"x";q=10, "a=b";q=3' },
      { ...none, limit: 3, remaining: 2, resetMs: 3_000, policy: 'a=b' },
    ],
    ['a quote opened and not closed is kept as sent, the rest of the field in it', { 'RateLimit-Policy': '"p;q=1', 'X-RateLimit-Limit': '5' }, { ...none, limit: 5, policy: '"p;q=1' }],
    ['a token ending in a quote is kept as sent', { 'RateLimit-Policy': 'p"', 'X-RateLimit-Limit': '5' }, { ...none, limit: 5, policy: 'p"' }],
    ['every escape in a quoted name undone: an escaped backslash and two escaped quotes', { RateLimit: '"a\\\\b\\"c\\"d";r=1' }, { ...none, remaining: 1, policy: 'a\\b"c"d' }],
    [
      'the draft 03-07 dictionary spaced before its commas, with an item among its keys, its policy parameter spaced',
      { RateLimit: 'limit=10 , remaining=3 ,reset=2, extra', 'RateLimit-Policy': '10; w=60, 5;w=1' },
      { ...none, limit: 10, remaining: 3, resetMs: 2_000, windowMs: 60_000 },
    ],
    [
      'RateLimit / RateLimit-Policy before RateLimit-Limit / -Remaining / -Reset, before X-RateLimit-*',
      {
        RateLimit: '"p";r=3;t=4',
        'RateLimit-Policy': '"p";q=10',
        'RateLimit-Limit': '20',
        'RateLimit-Remaining': '21',
        'RateLimit-Reset': '22',
        'X-RateLimit-Limit': '30',
        'X-RateLimit-Remaining': '31',
        'X-RateLimit-Reset': '32',
      },
      { ...none, limit: 10, remaining: 3, resetMs: 4_000, policy: 'p' },
    ],
    [
      'RateLimit-Limit / -Remaining / -Reset before X-RateLimit-*',
      { 'RateLimit-Limit': '20', 'RateLimit-Remaining': '21', 'RateLimit-Reset': '22', 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '31', 'X-RateLimit-Reset': '32' },
      { ...none, limit: 20, remaining: 21, resetMs: 22_000 },
    ],
    ['the draft 03-07 dictionary with only some of its keys', { RateLimit: 'remaining=5' }, { ...none, remaining: 5 }],
    ['a retry-after-ms with a unit is no number: Retry-After is read', { 'retry-after-ms': '5ms', 'Retry-After': '2' }, { ...none, retryAfterMs: 2_000 }],
    ['a retry-after-ms with two decimals', { 'retry-after-ms': '12.25', 'Retry-After': '2' }, { ...none, retryAfterMs: 12.25 }],
  ])('%s', async (_, headers, expected) => {
    expect(await rateLimitOfAnswer(headers)).toEqual(expected);
  });

  it('X-RateLimit-Reset as a Unix time (GitHub) and Retry-After as an HTTP date are delays from now', async () => {
    const inAMinute = Date.now() + 60_000;
    const info = await rateLimitOfAnswer({ 'X-RateLimit-Reset': String(Math.floor(inAMinute / 1000)), 'Retry-After': new Date(inAMinute).toUTCString() });
    expect(info!.resetMs).toBeGreaterThan(55_000);
    expect(info!.resetMs).toBeLessThanOrEqual(60_000);
    expect(info!.retryAfterMs).toBeGreaterThan(55_000);
    expect(info!.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('no throttling header, or only junk in them, is undefined', async () => {
    expect(await rateLimitOfAnswer({})).toBeUndefined();
    expect(await rateLimitOfAnswer({ 'X-RateLimit-Limit': 'lots', 'Retry-After': 'soon', RateLimit: '"x";r=-1', 'retry-after-ms': '-5' })).toBeUndefined();
  });

  it('a RateLimitError carries the limits of the refusal', async () => {
    server.use(http.get(ROOMS, () => HttpResponse.json({ error: 'slow down' }, { status: 429, headers: { RateLimit: '"default";r=0;t=1', 'RateLimit-Policy': '"default";q=10;w=1' } })));
    const error = await client.request({ method: 'GET', path: '/rooms' }, { maxRetries: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).rateLimit).toEqual({ ...none, limit: 10, remaining: 0, resetMs: 1_000, windowMs: 1_000, policy: 'default' });
  });
});

/**
 * Moves the faked clock (setTimeout, performance) on in 10 ms steps, letting the real I/O of msw's answers run
 * between them, until `done()` or `limitMs` passed. A slow step only makes a later wait start later.
 */
async function advanceUntil(done: () => boolean, limitMs: number): Promise<void> {
  for (let moved = 0; moved < limitMs && !done(); moved += 10) {
    await vi.advanceTimersByTimeAsync(10);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The gaps between the times (on the faked clock) `sent` holds. */
const gapsOf = (sent: number[]) => sent.slice(1).map((at, index) => at - sent[index]!);

describe('the service decides retries and waits', () => {
  /** Answers `first` once, then succeeds; reports the attempts and the waits beforeRetry saw. */
  function once(first: () => Response) {
    let calls = 0;
    server.use(http.get(ROOMS, () => (++calls === 1 ? first() : HttpResponse.json({ success: true, data: [] }))));
    const delays: number[] = [];
    const waiting = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, hooks: { beforeRetry: ({ delayMs }) => void delays.push(delayMs) } });
    return { calls: () => calls, delays, client: waiting };
  }

  it('x-should-retry: false is not retried, even a 503', async () => {
    const run = once(() => HttpResponse.json({ error: 'maintenance' }, { status: 503, headers: { 'x-should-retry': 'false', 'retry-after': '0' } }));
    await expect(run.client.request({ method: 'GET', path: '/rooms' })).rejects.toBeInstanceOf(InternalServerError);
    expect(run.calls()).toBe(1);
  });

  it('x-should-retry: true retries a status that is not retried otherwise (a 409 lock), with the backoff', async () => {
    const run = once(() => HttpResponse.json({ error: 'locked' }, { status: 409, headers: { 'x-should-retry': 'true' } }));
    await run.client.request({ method: 'GET', path: '/rooms' });
    expect(run.calls()).toBe(2);
    server.use(http.get(ROOMS, () => HttpResponse.json({ error: 'locked' }, { status: 409 })));
    await expect(run.client.request({ method: 'GET', path: '/rooms' })).rejects.toBeInstanceOf(ConflictError);
  });

  it('retry-after-ms is the wait, before a longer Retry-After', async () => {
    const run = once(() => HttpResponse.json({ error: 'busy' }, { status: 429, headers: { 'retry-after-ms': '400', 'retry-after': '30' } }));
    await run.client.request({ method: 'GET', path: '/rooms' });
    expect(run.calls()).toBe(2);
    expect(run.delays[0]).toBeGreaterThanOrEqual(390);
    expect(run.delays[0]).toBeLessThan(5_000);
  });

  it('a 429 whose RateLimit window has requests left waits the backoff, not the reset', async () => {
    const run = once(() => HttpResponse.json({ error: 'busy' }, { status: 429, headers: { RateLimit: '"default";r=3;t=60' } }));
    await run.client.request({ method: 'GET', path: '/rooms' });
    expect(run.calls()).toBe(2);
    // The backoff of a first retry (300 ms, jittered), far from the window's 60 s.
    expect(run.delays[0]).toBeLessThan(5_000);
  });

  it('a Retry-After past a minute holds the client (its governor too) for a minute, then the call is sent again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const sent: number[] = [];
      server.use(
        http.get(ROOMS, () => {
          sent.push(performance.now());
          return sent.length === 1 ? HttpResponse.json({ error: 'busy' }, { status: 429, headers: { 'retry-after': '3600' } }) : HttpResponse.json({ success: true, data: [] });
        }),
      );
      // A governor (maxConcurrency) pauses every send of the client for the asked wait: capped at a minute as the retry is.
      const governed = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, timeout: 7_200_000, maxConcurrency: 4 });
      const call = governed.request({ method: 'GET', path: '/rooms' });
      await advanceUntil(() => sent.length === 2, 120_000);
      await call;
      const [gap] = gapsOf(sent);
      expect(gap).toBeGreaterThanOrEqual(60_000);
      expect(gap).toBeLessThan(600_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the backoff doubles from 300 ms up to 8 s, jittered from 0 to its value', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    // The jitter's top: each wait 0.999 of the backoff.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.999);
    try {
      const sent: number[] = [];
      server.use(http.get(ROOMS, () => (sent.push(performance.now()), HttpResponse.json({ error: 'down' }, { status: 503 }))));
      const failing = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 7, timeout: 600_000, retryBudget: false });
      const call = failing.request({ method: 'GET', path: '/rooms' }).catch((error: unknown) => error);
      await advanceUntil(() => sent.length === 8, 60_000);
      expect(await call).toBeInstanceOf(InternalServerError);
      // 300, 600, 1200, 2400, 4800 ms, then 8 s and 8 s (not 9.6 and 19.2 s), each x 0.999; a slow step adds 10 ms.
      const backoff = [300, 600, 1_200, 2_400, 4_800, 8_000, 8_000];
      const gaps = gapsOf(sent);
      expect(gaps).toHaveLength(7);
      gaps.forEach((gap, index) => {
        expect(gap).toBeGreaterThanOrEqual(backoff[index]! * 0.999 - 1);
        expect(gap).toBeLessThan(backoff[index]! + 500);
      });
    } finally {
      random.mockRestore();
      vi.useRealTimers();
    }
  });

  it.each([
    [429, 'holds every send of the client', 5_000],
    [503, 'holds only its own retry', 0],
  ])('a %i with Retry-After (a governed client) %s', async (status, _, heldMs) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const rooms: number[] = [];
      const deals: number[] = [];
      server.use(
        http.get(ROOMS, () => {
          rooms.push(performance.now());
          return rooms.length === 1 ? HttpResponse.json({ error: 'busy' }, { status, headers: { 'retry-after': '5' } }) : HttpResponse.json({ success: true, data: [] });
        }),
        http.get(`${BASE_URL}/api/v1/deals`, () => (deals.push(performance.now()), HttpResponse.json({ success: true, data: [] }))),
      );
      const governed = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, timeout: 60_000, maxConcurrency: 4 });
      const first = governed.request({ method: 'GET', path: '/rooms' });
      await advanceUntil(() => rooms.length === 1, 1_000);
      // Another call of the same client, once the first was refused.
      const other = governed.request({ method: 'GET', path: '/deals' });
      await advanceUntil(() => rooms.length === 2 && deals.length === 1, 10_000);
      await Promise.all([first, other]);
      expect(rooms[1]! - rooms[0]!).toBeGreaterThanOrEqual(5_000);
      if (heldMs) expect(deals[0]! - rooms[0]!).toBeGreaterThanOrEqual(heldMs);
      // Not held: sent at once, long before the 5 s the first call's retry waits.
      else expect(deals[0]! - rooms[0]!).toBeLessThan(2_500);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a 429 that names no wait leaves the client unpaused, and a later 429's Retry-After still holds every send", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      const rooms: number[] = [];
      const deals: number[] = [];
      server.use(
        http.get(ROOMS, () => {
          rooms.push(performance.now());
          // 1st: a 429 with no wait (the backoff follows); 3rd: a 429 asking 5 s; else a success.
          if (rooms.length === 1) return HttpResponse.json({ error: 'busy' }, { status: 429 });
          if (rooms.length === 3) return HttpResponse.json({ error: 'busy' }, { status: 429, headers: { 'retry-after': '5' } });
          return HttpResponse.json({ success: true, data: [] });
        }),
        http.get(`${BASE_URL}/api/v1/deals`, () => (deals.push(performance.now()), HttpResponse.json({ success: true, data: [] }))),
      );
      const governed = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, timeout: 60_000, maxConcurrency: 4 });
      const first = governed.request({ method: 'GET', path: '/rooms' });
      await advanceUntil(() => rooms.length === 2, 5_000);
      await first;
      const second = governed.request({ method: 'GET', path: '/rooms' });
      await advanceUntil(() => rooms.length === 3, 1_000);
      const other = governed.request({ method: 'GET', path: '/deals' });
      await advanceUntil(() => rooms.length === 4 && deals.length === 1, 10_000);
      await Promise.all([second, other]);
      expect(deals[0]! - rooms[2]!).toBeGreaterThanOrEqual(5_000);
    } finally {
      random.mockRestore();
      vi.useRealTimers();
    }
  });

  it.each([
    ['its RateLimit window', { RateLimit: '"default";r=0;t=1' }],
    ['a reset with no remaining count', { 'RateLimit-Reset': '1' }],
  ])('a 429 without Retry-After waits for %s to reset', async (_, headers) => {
    const run = once(() => HttpResponse.json({ error: 'busy' }, { status: 429, headers }));
    await run.client.request({ method: 'GET', path: '/rooms' });
    expect(run.delays[0]).toBeGreaterThanOrEqual(990);
  });
});
