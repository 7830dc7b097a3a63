import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { APIError, Client } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

// Edges of the promise every method returns, which mutation testing found unguarded: `finally`,
// `asResponse()` of an empty answer, and the URL of answers from a custom fetch (whose Response
// has no `url` of its own).

const server = useMockService();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off' });
const TRANSACTIONS = `${BASE_URL}/api/v1/svc/transactions`;

describe('APIPromise', () => {
  it('finally runs its callback once and passes the data through', async () => {
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ success: true, data: [{ id: 1 }] })));
    const done = vi.fn();
    expect(await client.transactions.list({ deal_id: 1 }).finally(done)).toEqual([{ id: 1 }]);
    expect(done).toHaveBeenCalledTimes(1);
  });

  it('finally runs its callback on failure too, and the error still reaches the caller', async () => {
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ error: 'gone' }, { status: 404 })));
    const done = vi.fn();
    await expect(client.transactions.list({ deal_id: 1 }).finally(done)).rejects.toBeInstanceOf(APIError);
    expect(done).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['204', 204],
    ['200 with an empty body', 200],
  ])('asResponse() of a %s answer has no body (null), as the original', async (_, status) => {
    server.use(http.delete(`${BASE_URL}/api/v1/webhooks/3/`, () => new HttpResponse(null, { status })));
    const response = await client.webhooks.delete(3).asResponse();
    expect(response.status).toBe(status);
    expect(response.body).toBeNull();
  });

  it('asResponse() of a 200 with a body keeps the body, unread', async () => {
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ success: true, data: [] })));
    const response = await client.transactions.list({ deal_id: 1 }).asResponse();
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ success: true, data: [] });
  });
});

describe('answers from a custom fetch, whose Response has no url', () => {
  /** A client whose fetch answers with a hand-made Response (its `url` is ''). */
  function clientAnswering(status: number, body: unknown) {
    return new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      maxRetries: 0,
      logLevel: 'off',
      fetch: async () => Response.json(body, { status }),
    });
  }

  it('asResponse().url and withResponse().response.url name the request with its query, not ""', async () => {
    const custom = clientAnswering(200, { success: true, data: [] });
    expect((await custom.transactions.list({ deal_id: 1 }).asResponse()).url).toBe(`${TRANSACTIONS}?deal_id=1`);
    expect((await custom.transactions.list({ deal_id: 1 }).withResponse()).response.url).toBe(`${TRANSACTIONS}?deal_id=1`);
  });

  it('a { success: false } answer is an APIError whose url names the request, not ""', async () => {
    const error = await clientAnswering(200, { success: false, error: 'quota' })
      .transactions.list({ deal_id: 1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).url).toBe(`${TRANSACTIONS}?deal_id=1`);
  });
});
