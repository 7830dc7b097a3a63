import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { APITimeoutError, APIUserAbortError, Client, ValidationError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();
const ROOMS = `${BASE_URL}/api/v1/rooms`;

/** A service that answers after `ms`, counting the requests in flight at once. */
function slowService(ms: number) {
  const seen = { inFlight: 0, most: 0, requests: 0, at: [] as number[] };
  server.use(
    http.get(ROOMS, async () => {
      seen.requests++;
      seen.at.push(performance.now());
      seen.most = Math.max(seen.most, ++seen.inFlight);
      await delay(ms);
      seen.inFlight--;
      return HttpResponse.json({ success: true, data: [] });
    }),
  );
  return seen;
}

const clientWith = (options: ConstructorParameters<typeof Client>[0]) => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, ...options });

describe('maxConcurrency', () => {
  it('holds the requests in flight to maxConcurrency; every call still succeeds', async () => {
    const seen = slowService(20);
    const client = clientWith({ maxConcurrency: 3 });
    await Promise.all(Array.from({ length: 20 }, () => client.request({ method: 'GET', path: '/rooms' })));
    expect(seen.requests).toBe(20);
    expect(seen.most).toBe(3);
  });

  it('queue time counts against the timeout: the error says "while queued", and nothing was sent', async () => {
    const seen = slowService(400);
    const client = clientWith({ maxConcurrency: 1, maxRetries: 2 });
    const first = client.request({ method: 'GET', path: '/rooms' });
    const error = await client.request({ method: 'GET', path: '/rooms' }, { timeout: 100 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe(
      "GET /api/v1/rooms timed out after 100 ms while queued behind maxConcurrency 1 (nothing was sent): raise `timeout` or try again",
    );
    await first;
    // The queued call was never sent, nor retried into the queue again.
    expect(seen.requests).toBe(1);
  });

  it('a timeout after the request left the queue says "sent", with the time it queued', async () => {
    slowService(300);
    const client = clientWith({ maxConcurrency: 1, maxRetries: 0 });
    const error = await client.request({ method: 'GET', path: '/rooms' }, { timeout: 100 }).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^GET \/api\/v1\/rooms timed out after 100 ms \(sent after \d+ ms queued\): raise `timeout` or try again$/);
  });

  it('a call queued behind every limit names them all: the concurrency, the rate and the shared limiter', async () => {
    slowService(400);
    const limiter = { acquire: async () => {} };
    const client = clientWith({ maxConcurrency: 1, maxRequestsPerSecond: 5, limiter, maxRetries: 0 });
    const first = client.request({ method: 'GET', path: '/rooms' });
    const error = await client.request({ method: 'GET', path: '/rooms' }, { timeout: 100 }).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain("while queued behind maxConcurrency 1, maxRequestsPerSecond 5, a shared limiter (nothing was sent)");
    await first;
  });

  it('an attempt whose shared limiter refuses it gives its slot back: the next call goes through', async () => {
    const seen = slowService(0);
    let refusals = 1;
    const limiter = {
      acquire: async () => {
        if (refusals-- > 0) throw new Error('the shared limiter is unreachable');
      },
    };
    const client = clientWith({ maxConcurrency: 1, limiter, maxRetries: 0 });
    await expect(client.request({ method: 'GET', path: '/rooms' })).rejects.toThrow();
    // Had the refused attempt kept its slot, this one would wait in the queue until its timeout.
    await expect(client.request({ method: 'GET', path: '/rooms' }, { timeout: 10_000 })).resolves.toEqual([]);
    expect(seen.requests).toBe(1);
  });

  it("the caller's signal takes a queued call out of the line; the calls behind it go on", async () => {
    const seen = slowService(100);
    const client = clientWith({ maxConcurrency: 1 });
    const controller = new AbortController();
    const calls = [
      client.request({ method: 'GET', path: '/rooms' }),
      client.request({ method: 'GET', path: '/rooms' }, { signal: controller.signal }),
      client.request({ method: 'GET', path: '/rooms' }),
    ];
    controller.abort();
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(APIUserAbortError);
    expect(seen.requests).toBe(2);
  });

  it.each([
    [{ maxConcurrency: 0 }, 'maxConcurrency must be a whole number of requests at once, 1 or more'],
    [{ maxRequestsPerSecond: -1 }, 'maxRequestsPerSecond must be a number of requests a second above 0 (0.5 is one every 2 s)'],
    [{ limiter: {} }, "limiter must have an acquire(signal) method, as svc-sdk/limits' redisRateLimiter() returns"],
  ])('new Client(%j) is a ValidationError naming the field', (options, message) => {
    expect(() => clientWith(options as never)).toThrow(ValidationError);
    expect(() => clientWith(options as never)).toThrow(message);
  });
});

describe('maxRequestsPerSecond', () => {
  it('spaces every attempt evenly, the pages of a list and an upload included', async () => {
    const at: number[] = [];
    const page = (next: string | null) => HttpResponse.json({ results: [{ id: at.length }], next });
    server.use(
      http.get(`${BASE_URL}/api/v1/svc/transactions`, ({ request }) => {
        at.push(performance.now());
        const index = Number(new URL(request.url).searchParams.get('page') ?? 1);
        return page(index < 3 ? `${BASE_URL}/api/v1/svc/transactions?deal_id=1&page=${index + 1}` : null);
      }),
      http.post(`${BASE_URL}/api/v1/rooms/:room/documents`, async ({ request }) => {
        await request.arrayBuffer();
        at.push(performance.now());
        return HttpResponse.json({ success: true, data: { id: 1, original_filename: 'a.txt' } });
      }),
    );
    // Sends are timed where the governor lets them go: beforeRequest runs right after an attempt's wait.
    const sent: number[] = [];
    const client = clientWith({ maxRequestsPerSecond: 10, hooks: { beforeRequest: () => void sent.push(performance.now()) } });
    const t0 = performance.now();
    const [items] = await Promise.all([
      client.transactions.list({ deal_id: 1 }),
      client.documents.upload(1, new File(['hello'], 'a.txt')),
    ]);
    expect(items).toHaveLength(3);
    expect(at).toHaveLength(4);
    expect(sent).toHaveLength(4);
    // Four sends at 10 a second: the k-th no earlier than k × 100 ms after the calls began (a timer may fire a tick
    // early; a send may leave late on a loaded machine, so gaps between two sends are not what is held).
    const sorted = sent.toSorted((a, b) => a - b);
    for (let index = 0; index < sorted.length; index++) expect(sorted[index]! - t0).toBeGreaterThanOrEqual(index * 100 - 1);
  });
});
