import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client, InternalServerError, RateLimitError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

// The client-level `maxRetries` (the other retry tests use the default of 2 or a per-call value):
// each value gives exactly that many retries, for every call of that client.

const server = useMockService();
const TRANSACTIONS = `${BASE_URL}/api/v1/svc/transactions`;

/** Counts the requests to `url` for `method`, answering each with `answer(call)` (1-based). */
function countCalls(method: 'get' | 'patch', url: string, answer: (call: number) => Response) {
  const seen: Request[] = [];
  server.use(
    http[method](url, async ({ request }) => {
      seen.push(request.clone());
      return answer(seen.length);
    }),
  );
  return seen;
}

/** A client with the given options; logging off, as the give-up warnings are not what is tested here. */
const makeClient = (options: { maxRetries?: number } = {}) => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logLevel: 'off', ...options });

const unavailable = () => HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } });

describe('Client({ maxRetries })', () => {
  it.each([0, 1, 4])('maxRetries: %i makes a failing GET be sent once, plus that many retries', async (maxRetries) => {
    const seen = countCalls('get', TRANSACTIONS, unavailable);
    const client = makeClient({ maxRetries });
    await expect(client.transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1 + maxRetries);
  });

  it('without maxRetries a failing GET is sent 3 times (2 retries)', async () => {
    const seen = countCalls('get', TRANSACTIONS, unavailable);
    await expect(makeClient().transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(3);
  });

  it('maxRetries: 3 lets a GET that fails three times succeed on the fourth attempt', async () => {
    const seen = countCalls('get', TRANSACTIONS, (call) => (call <= 3 ? unavailable() : HttpResponse.json({ success: true, data: [{ id: 7 }] })));
    const client = makeClient({ maxRetries: 3 });
    expect(await client.transactions.list({ deal_id: 1 })).toEqual([{ id: 7 }]);
    expect(seen).toHaveLength(4);
  });

  it('maxRetries: 1 gives a 429 one retry, then the RateLimitError', async () => {
    const seen = countCalls('get', TRANSACTIONS, () => HttpResponse.json({ error: 'slow down' }, { status: 429, headers: { 'retry-after': '0' } }));
    const client = makeClient({ maxRetries: 1 });
    await expect(client.transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(RateLimitError);
    expect(seen).toHaveLength(2);
  });

  it('maxRetries: 3 resends a PATCH with the same body on every attempt', async () => {
    const seen = countCalls('patch', `${TRANSACTIONS}/9`, (call) =>
      call <= 3 ? unavailable() : HttpResponse.json({ success: true, data: { id: 9, linked_room_id: 3 } }),
    );
    const client = makeClient({ maxRetries: 3 });
    await client.transactions.update(9, { linked_room_id: 3 });
    expect(seen).toHaveLength(4);
    expect(await Promise.all(seen.map((request) => request.json()))).toEqual(Array(4).fill({ linked_room_id: 3 }));
  });

  it('a per-call maxRetries overrides a client-level value other than the default, both ways', async () => {
    const seen = countCalls('get', TRANSACTIONS, unavailable);
    const client = makeClient({ maxRetries: 4 });
    await expect(client.transactions.list({ deal_id: 1 }, { maxRetries: 0 })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
    const none = makeClient({ maxRetries: 0 });
    await expect(none.transactions.list({ deal_id: 1 }, { maxRetries: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(3);
  });

  // 2 is the default: a per-call 2 must still mean 2 when the client's own value is another.
  it.each([0, 4])('a per-call maxRetries: 2 on a client with maxRetries: %i gives 2 retries', async (clientRetries) => {
    const seen = countCalls('get', TRANSACTIONS, unavailable);
    await expect(makeClient({ maxRetries: clientRetries }).transactions.list({ deal_id: 1 }, { maxRetries: 2 })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(3);
  });

  it('two clients keep their own maxRetries', async () => {
    const seen = countCalls('get', TRANSACTIONS, unavailable);
    const once = makeClient({ maxRetries: 1 });
    const never = makeClient({ maxRetries: 0 });
    await expect(once.transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    await expect(never.transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    await expect(once.transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(2 + 1 + 2);
  });
});
