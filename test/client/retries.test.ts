import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, APITimeoutError, Client, InternalServerError, RateLimitError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 2 });
const dealParams = { name: 'Acme', stage: 'sourcing', asset_class: 'equity' };

/** A handler answering from a script of responses, counting the calls it got. */
function scripted(responses: Array<() => Response | Promise<Response>>) {
  let calls = 0;
  const handler = () => {
    const next = responses[Math.min(calls, responses.length - 1)]!;
    calls++;
    return next();
  };
  return { handler, calls: () => calls };
}

const ok = (data: unknown) => () => HttpResponse.json({ success: true, data });
const status = (code: number, headers?: Record<string, string>) => () =>
  HttpResponse.json({ error: `status ${code}` }, { status: code, headers });

describe('retries', () => {
  it.each([408, 429, 500, 501, 502, 503, 504, 507, 599])('a GET answered %i is retried and then succeeds', async (code) => {
    const script = scripted([status(code, { 'retry-after': '0' }), ok([{ id: 1 }])]);
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, script.handler));
    expect(await client.transactions.list({ deal_id: 1 })).toEqual([{ id: 1 }]);
    expect(script.calls()).toBe(2);
  });

  it('a GET gives up after maxRetries and throws the last error', async () => {
    const script = scripted([status(500)]);
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, script.handler));
    await expect(client.transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(script.calls()).toBe(3);
  });

  it('per-call maxRetries overrides the client', async () => {
    const script = scripted([status(503, { 'retry-after': '0' })]);
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, script.handler));
    await expect(client.transactions.list({ deal_id: 1 }, { maxRetries: 0 })).rejects.toBeInstanceOf(InternalServerError);
    expect(script.calls()).toBe(1);
  });

  it('a per-call maxRetries above the client\'s gives that many retries', async () => {
    const script = scripted([status(503, { 'retry-after': '0' })]);
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, script.handler));
    await expect(client.transactions.list({ deal_id: 1 }, { maxRetries: 3 })).rejects.toBeInstanceOf(InternalServerError);
    expect(script.calls()).toBe(4);
  });

  it('a per-call maxRetries cannot make a create retry', async () => {
    const script = scripted([status(503, { 'retry-after': '0' }), ok({ id: 1, name: 'Acme', stage: 'sourcing' })]);
    server.use(http.post(`${BASE_URL}/api/v1/svc/crm/deals`, script.handler));
    await expect(client.deals.create(dealParams, { maxRetries: 5 })).rejects.toBeInstanceOf(InternalServerError);
    expect(script.calls()).toBe(1);
  });

  it.each([400, 401, 404, 409, 422])('a %i answer is not retried', async (code) => {
    const script = scripted([status(code)]);
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, script.handler));
    await expect(client.transactions.list({ deal_id: 1 })).rejects.toMatchObject({ status: code });
    expect(script.calls()).toBe(1);
  });

  it('a GET that hits a network error is retried', async () => {
    const script = scripted([() => HttpResponse.error(), ok([])]);
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, script.handler));
    expect(await client.transactions.list({ deal_id: 1 })).toEqual([]);
    expect(script.calls()).toBe(2);
  });

  it('a GET that times out is retried, each attempt with its own timeout', async () => {
    const script = scripted([() => new Promise<never>(() => {}), ok([{ id: 2 }])]);
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, script.handler));
    expect(await client.transactions.list({ deal_id: 1 }, { timeout: 100 })).toEqual([{ id: 2 }]);
    expect(script.calls()).toBe(2);
  });

  it('a PATCH (it sets fields, so replaying it is safe) is retried, with its body and headers each time', async () => {
    const script = scripted([status(502), ok({ id: 9, linked_room_id: 5 })]);
    const sent: Array<{ body: unknown; type: string | null; auth: string | null }> = [];
    server.use(
      http.patch(`${BASE_URL}/api/v1/svc/transactions/9`, async ({ request }) => {
        sent.push({ body: await request.json(), type: request.headers.get('content-type'), auth: request.headers.get('authorization') });
        return script.handler();
      }),
    );
    expect(await client.transactions.update(9, { linked_room_id: 5 })).toEqual({ id: 9, linked_room_id: 5 });
    expect(script.calls()).toBe(2);
    const attempt = { body: { linked_room_id: 5 }, type: 'application/json', auth: `Bearer ${API_KEY}` };
    expect(sent).toEqual([attempt, attempt]);
  });

  it('a POST that creates is never sent twice: not on 5xx, 429, network errors or timeouts', async () => {
    for (const [answer, ErrorClass] of [
      [status(500), InternalServerError],
      [status(429, { 'retry-after': '0' }), RateLimitError],
      [() => HttpResponse.error(), APIConnectionError],
      [() => new Promise<never>(() => {}), APITimeoutError],
    ] as const) {
      const script = scripted([answer, ok({ id: 1, name: 'Acme', stage: 'sourcing' })]);
      server.use(http.post(`${BASE_URL}/api/v1/svc/crm/deals`, script.handler));
      await expect(client.deals.create(dealParams, { timeout: 100 })).rejects.toBeInstanceOf(ErrorClass);
      expect(script.calls()).toBe(1);
    }
  });

  it('a dry run (ephemeral POST) writes nothing, so it is retried', async () => {
    const script = scripted([status(503, { 'retry-after': '0' }), ok({ id: null, name: 'Acme', stage: 'sourcing' })]);
    server.use(http.post(`${BASE_URL}/api/v1/svc/crm/deals`, script.handler));
    expect((await client.deals.create(dealParams, { ephemeral: true })).id).toBeNull();
    expect(script.calls()).toBe(2);
  });

  it('a 429 waits for Retry-After before the next attempt', async () => {
    const times: number[] = [];
    const script = scripted([status(429, { 'retry-after': '1' }), ok([])]);
    server.use(
      http.get(`${BASE_URL}/api/v1/svc/transactions`, () => {
        times.push(performance.now());
        return script.handler();
      }),
    );
    await client.transactions.list({ deal_id: 1 });
    expect(script.calls()).toBe(2);
    // A floor, not a timing measurement: the retry must not come before the server asked.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });
});
