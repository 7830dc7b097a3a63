import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { Client, ResponseValidationError, SvcError, ValidationError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';

const server = useMockService();
const requests = recordRequests(server);
beforeEach(() => {
  requests.length = 0;
});
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 2 });
const TRANSACTIONS = `${BASE_URL}/api/v1/svc/transactions`;

/** `total` transactions served `size` a page, Django-style, each page's `next` absolute. */
function paginated(total: number, size: number, item: (id: number) => unknown = (id) => ({ id, deal_id: 7, linked_room_id: 100 + (id % 3) })) {
  return ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    const number = Number(url.searchParams.get('page') ?? '1');
    const ids = Array.from({ length: Math.max(0, Math.min(size, total - (number - 1) * size)) }, (_, index) => (number - 1) * size + index + 1);
    url.searchParams.set('page', String(number + 1));
    const next = number * size < total ? url.href : null;
    return HttpResponse.json({ count: total, next, previous: null, results: ids.map(item) });
  };
}

describe('lists are read whole', () => {
  it('awaiting transactions.list returns every item of every page (250 in pages of 100)', async () => {
    server.use(http.get(TRANSACTIONS, paginated(250, 100)));
    const all = await client.transactions.list({ deal_id: 7 });
    expect(all.map((tx) => tx.id)).toEqual(Array.from({ length: 250 }, (_, index) => index + 1));
    expect(requests.map((request) => new URL(request.url).searchParams.get('page'))).toEqual([null, '2', '3']);
    for (const request of requests) expect(request.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
  });

  it('a page inside the { success, data } envelope is followed too', async () => {
    server.use(
      http.get(TRANSACTIONS, ({ request }) => {
        const second = new URL(request.url).searchParams.has('cursor');
        return HttpResponse.json({
          success: true,
          data: second ? { next: null, results: [{ id: 2 }] } : { next: '/api/v1/svc/transactions?deal_id=7&cursor=b', results: [{ id: 1 }] },
        });
      }),
    );
    expect(await client.transactions.list({ deal_id: 7 })).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('a plain array, and a page without next, are one page as before', async () => {
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json([{ id: 4 }])));
    expect(await client.transactions.list({ deal_id: 7 })).toEqual([{ id: 4 }]);
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ results: [{ id: 5 }] })));
    expect(await client.transactions.list({ deal_id: 7 })).toEqual([{ id: 5 }]);
    expect(requests).toHaveLength(2);
  });

  it('for await iterates lazily: stopping after the first item fetches one page', async () => {
    server.use(http.get(TRANSACTIONS, paginated(250, 100)));
    const seen: number[] = [];
    for await (const tx of client.transactions.list({ deal_id: 7 })) {
      seen.push(tx.id);
      if (seen.length === 1) break;
    }
    expect(seen).toEqual([1]);
    expect(requests).toHaveLength(1);
  });

  it('for await yields every item, fetching each page when the previous one is used up', async () => {
    server.use(http.get(TRANSACTIONS, paginated(5, 2)));
    const seen: Array<[number, number]> = [];
    for await (const tx of client.transactions.list({ deal_id: 7 })) seen.push([tx.id, requests.length]);
    expect(seen).toEqual([[1, 1], [2, 1], [3, 2], [4, 2], [5, 3]]);
  });

  it('a next page answered 503 is retried with the client\'s retries', async () => {
    let failed = false;
    const pages = paginated(3, 2);
    server.use(
      http.get(TRANSACTIONS, (info) => {
        if (new URL(info.request.url).searchParams.get('page') === '2' && !failed) {
          failed = true;
          return HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } });
        }
        return pages(info);
      }),
    );
    expect((await client.transactions.list({ deal_id: 7 })).map((tx) => tx.id)).toEqual([1, 2, 3]);
    expect(requests).toHaveLength(3);
  });

  it('a next that never ends stops at maxPages with a clear SvcError', async () => {
    server.use(http.get(TRANSACTIONS, paginated(Number.MAX_SAFE_INTEGER, 1)));
    const error = await client.transactions.list({ deal_id: 7 }, { maxPages: 3 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as Error).message).toBe(
      '[svc-sdk] transactions.list: stopped after 3 pages (maxPages) with more to come: raise maxPages, or iterate with for await and stop early',
    );
    expect(requests).toHaveLength(3);
  });

  it('a next that points back to a page already read is a ResponseValidationError at once', async () => {
    server.use(http.get(TRANSACTIONS, ({ request }) => HttpResponse.json({ next: request.url, results: [{ id: 1 }] })));
    const error = await client.transactions.list({ deal_id: 7 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toContain('next: the next page is one already read');
    expect(requests).toHaveLength(1);
  });

  it('maxPages below 1 is a ValidationError, nothing sent', async () => {
    const error = await client.transactions.list({ deal_id: 7 }, { maxPages: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe('[svc-sdk] transactions.list: maxPages must be a whole number, 1 or more. Nothing was sent.');
    expect(requests).toHaveLength(0);
  });

  it('an item of a later page with a wrong field is a ResponseValidationError naming it', async () => {
    server.use(paginatedWith((id) => ({ id: id === 3 ? 'three' : id })));
    const error = await client.transactions.list({ deal_id: 7 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.path).toEqual(['results', 0, 'id']);
  });

  it('deals.linkedRoomIds reads every page', async () => {
    server.use(http.get(TRANSACTIONS, paginated(250, 100, (id) => ({ id, linked_room_id: id === 250 ? 999 : 5 }))));
    expect(await client.deals.linkedRoomIds(7)).toEqual([5, 999]);
    expect(requests).toHaveLength(3);
  });

  it('webhooks.list reads every page', async () => {
    server.use(
      http.get(`${BASE_URL}/api/v1/webhooks/`, ({ request }) =>
        new URL(request.url).searchParams.has('page')
          ? HttpResponse.json({ next: null, results: [{ id: 2 }] })
          : HttpResponse.json({ next: '/api/v1/webhooks/?page=2', results: [{ id: 1 }] }),
      ),
    );
    expect(await client.webhooks.list()).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('withResponse on a list gives every item and the first page\'s response and request id', async () => {
    server.use(
      http.get(TRANSACTIONS, (info) => {
        const response = paginated(3, 2)(info);
        response.headers.set('x-request-id', new URL(info.request.url).searchParams.get('page') ?? 'first');
        return response;
      }),
    );
    const { data, response, requestId } = await client.transactions.list({ deal_id: 7 }).withResponse();
    expect(data.map((tx) => tx.id)).toEqual([1, 2, 3]);
    expect(requestId).toBe('first');
    expect(response.bodyUsed).toBe(false);
    expect(((await response.json()) as { results: unknown[] }).results).toHaveLength(2);
  });
});

function paginatedWith(item: (id: number) => unknown) {
  return http.get(TRANSACTIONS, paginated(4, 2, item));
}
