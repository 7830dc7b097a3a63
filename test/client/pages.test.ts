// A list's pages against a hostile service, at a real server: `next` links that go round in
// circles (a fragment, another spelling of the same page, the same items), redirects and links to
// other origins, and links that carry credentials.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { APIError, Client, ResponseValidationError, type Transaction } from '../../src/index.node.js';
import { failure } from '../support/failure.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY } from '../support/msw.js';

const service = useLoopbackServer();
const elsewhere = useLoopbackServer(); // another port: another origin
const client = () => new Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0 });
const FIRST = '/api/v1/svc/transactions?deal_id=1';

/** Iterates the list with `for await`, keeping the items yielded and the error that ended it. */
async function iterate(list: AsyncIterable<Transaction>): Promise<{ ids: number[]; error: unknown }> {
  const ids: number[] = [];
  try {
    for await (const item of list) ids.push(item.id);
  } catch (error) {
    return { ids, error };
  }
  return { ids, error: undefined };
}

describe('a next link that goes round in circles ends the list at once', () => {
  it('the same page with a fragment (#p1, #p2, …) is the same page: refused before it is fetched again', async () => {
    service.handle((request, response) => sendJson(response, 200, { results: [{ id: 1 }, { id: 2 }], next: `${service.url}${request.url}#p${Math.random()}` }));
    const { ids, error } = await iterate(client().transactions.list({ deal_id: 1 }));
    expect(ids).toEqual([1, 2]);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toBe(
      '[svc-sdk] transactions.list: unexpected response from the service: next: the next page is one already read (/api/v1/svc/transactions?deal_id=1): the list would never end',
    );
    expect(service.requests).toHaveLength(1);
  });

  it('the same page under another URL (a doubled slash) sends the same body: the list ends on the second copy', async () => {
    service.handle((_request, response) => sendJson(response, 200, { results: [{ id: 1 }], next: '/api/v1/svc//transactions?deal_id=1' }));
    const { ids, error } = await iterate(client().transactions.list({ deal_id: 1 }));
    expect(ids).toEqual([1]);
    expect((error as Error).message).toBe(
      "[svc-sdk] transactions.list: unexpected response from the service: next: page 2 repeats page 1 (the same body): the service's next link goes round in circles, so the list stops here",
    );
    expect(service.requests.map(({ url }) => url)).toEqual([FIRST, '/api/v1/svc//transactions?deal_id=1']);
  });

  it('the same page under a cache-busting parameter (&_=N, so each body differs) repeats its item ids: the list ends on the second copy', async () => {
    let served = 0;
    service.handle((_request, response) => sendJson(response, 200, { results: [{ id: 1 }], next: `${FIRST}&_=${++served}` }));
    const { ids, error } = await iterate(client().transactions.list({ deal_id: 1 }));
    expect(ids).toEqual([1]);
    expect((error as Error).message).toBe(
      "[svc-sdk] transactions.list: unexpected response from the service: next: page 2 repeats page 1 (the same item ids): the service's next link goes round in circles, so the list stops here",
    );
    expect(service.requests).toHaveLength(2);
  });

  it('a page whose items repeat an earlier page\'s ids (a fresh timestamp in each body) ends the list too', async () => {
    service.handle((_request, response, index) =>
      sendJson(response, 200, { results: index === 0 ? [{ id: 1 }, { id: 2 }] : [{ id: 3 }, { id: 4 }], next: `/api/v1/svc/transactions?page=${index + 2}`, at: index }),
    );
    // Pages 2, 3, …: the same items 3 and 4, each body with its own `at`.
    const error = await failure(client().transactions.list({ deal_id: 1 }));
    expect((error as Error).message).toBe(
      "[svc-sdk] transactions.list: unexpected response from the service: next: page 3 repeats page 2 (the same item ids): the service's next link goes round in circles, so the list stops here",
    );
    expect(service.requests).toHaveLength(3);
  });

  it('the last page (next: null) repeating an earlier page ends the list too', async () => {
    service.handle((_request, response, index) => sendJson(response, 200, { results: [{ id: 1 }], next: index === 0 ? '/api/v1/svc/transactions?page=2' : null, page: index }));
    const { ids, error } = await iterate(client().transactions.list({ deal_id: 1 }));
    expect(ids).toEqual([1]);
    expect((error as Error).message).toBe(
      "[svc-sdk] transactions.list: unexpected response from the service: next: page 2 repeats page 1 (the same item ids): the service's next link goes round in circles, so the list stops here",
    );
  });

  it('empty pages (no ids to compare) with different bodies are read on', async () => {
    service.handle((_request, response, index) =>
      sendJson(response, 200, { results: index === 2 ? [{ id: 9 }] : [], next: index < 2 ? `/api/v1/svc/transactions?page=${index + 2}` : null, page: index }),
    );
    await expect(client().transactions.list({ deal_id: 1 })).resolves.toEqual([{ id: 9 }]);
    expect(service.requests).toHaveLength(3);
  });

  it('distinct pages are all read', async () => {
    service.handle((_request, response, index) => sendJson(response, 200, { results: [{ id: index }], next: index < 2 ? `/api/v1/svc/transactions?page=${index + 2}` : null }));
    await expect(client().transactions.list({ deal_id: 1 })).resolves.toEqual([{ id: 0 }, { id: 1 }, { id: 2 }]);
  });
});

describe('pages and other origins', () => {
  it('the first page redirected to another origin is not followed: an APIError, and that origin is never asked', async () => {
    service.handle((_request, response) => response.writeHead(302, { location: `${elsewhere.url}${FIRST}` }).end());
    elsewhere.handle((_request, response) => sendJson(response, 200, { results: [{ id: 666 }], next: null }));
    const error = await failure(client().transactions.list({ deal_id: 1 }));
    expect(error).toBeInstanceOf(APIError);
    expect((error as Error).message).toBe(
      `GET ${FIRST} failed with 302, a redirect to ${elsewhere.url}${FIRST}: a page of a list is never read from another origin, so its items cannot join the list`,
    );
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a later page redirected to another origin is not followed either', async () => {
    service.handle((request, response) =>
      request.url === FIRST
        ? sendJson(response, 200, { results: [{ id: 1 }], next: '/api/v1/svc/transactions?page=2' })
        : response.writeHead(307, { location: `${elsewhere.url}/api/v1/svc/transactions?page=2` }).end(),
    );
    elsewhere.handle((_request, response) => sendJson(response, 200, { results: [{ id: 666 }], next: null }));
    const { ids, error } = await iterate(client().transactions.list({ deal_id: 1 }));
    expect(ids).toEqual([1]);
    expect(error).toBeInstanceOf(APIError);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a redirect on the same origin is followed', async () => {
    service.handle((request, response) =>
      request.url === FIRST ? response.writeHead(301, { location: '/api/v1/svc/transactions?moved=1' }).end() : sendJson(response, 200, { results: [{ id: 7 }], next: null }),
    );
    await expect(client().transactions.list({ deal_id: 1 })).resolves.toEqual([{ id: 7 }]);
  });

  it('an absolute next on another origin under /api/v1/ (a proxy rewrote Host) is read from the client\'s own origin', async () => {
    service.handle((request, response) =>
      request.url === FIRST
        ? sendJson(response, 200, { results: [{ id: 1 }], next: `${elsewhere.url}/api/v1/svc/transactions?page=2#top` })
        : sendJson(response, 200, { results: [{ id: 2 }], next: null }),
    );
    await expect(client().transactions.list({ deal_id: 1 })).resolves.toEqual([{ id: 1 }, { id: 2 }]);
    expect(service.requests.map(({ url, headers }) => [url, headers.authorization])).toEqual([
      [FIRST, `Bearer ${API_KEY}`],
      ['/api/v1/svc/transactions?page=2', `Bearer ${API_KEY}`],
    ]);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('with a baseUrl that has a path, an absolute next under /api/v1/ elsewhere is read under that path', async () => {
    service.handle((request, response) =>
      request.url === '/gw/api/v1/svc/transactions?deal_id=1'
        ? sendJson(response, 200, { results: [{ id: 1 }], next: `${elsewhere.url}/api/v1/svc/transactions?page=2` })
        : sendJson(response, 200, { results: [{ id: 2 }], next: null }),
    );
    const gateway = new Client({ apiKey: API_KEY, baseUrl: `${service.url}/gw`, maxRetries: 0 });
    await expect(gateway.transactions.list({ deal_id: 1 })).resolves.toEqual([{ id: 1 }, { id: 2 }]);
    expect(service.requests.map(({ url }) => url)).toEqual(['/gw/api/v1/svc/transactions?deal_id=1', '/gw/api/v1/svc/transactions?page=2']);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a next on another origin outside /api/v1/ is refused, naming the field', async () => {
    service.handle((_request, response) => sendJson(response, 200, { results: [{ id: 1 }], next: `${elsewhere.url}/other/page2` }));
    const error = await failure(client().transactions.list({ deal_id: 1 }));
    expect((error as ResponseValidationError).issues).toEqual([
      { path: ['next'], message: `the next page must be on ${service.url}, not ${elsewhere.url}: the API key is never sent elsewhere` },
    ]);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a next on the same origin outside /api/v1/ is read (the key stays on the origin)', async () => {
    service.handle((request, response) =>
      request.url === FIRST ? sendJson(response, 200, { results: [{ id: 1 }], next: '/pages/2' }) : sendJson(response, 200, { results: [{ id: 2 }], next: null }),
    );
    await expect(client().transactions.list({ deal_id: 1 })).resolves.toEqual([{ id: 1 }, { id: 2 }]);
    expect(service.requests.map(({ url }) => url)).toEqual([FIRST, '/pages/2']);
  });

  it('a next that is not a URL is refused, naming the field', async () => {
    service.handle((_request, response) => sendJson(response, 200, { results: [{ id: 1 }], next: 'http://[' }));
    const error = await failure(client().transactions.list({ deal_id: 1 }));
    expect((error as ResponseValidationError).issues).toEqual([{ path: ['next'], message: 'next must be a URL or null' }]);
    expect(service.requests).toHaveLength(1);
  });

  it('a next with a user name alone (a token in the URL) is refused too', async () => {
    service.handle((_request, response) => sendJson(response, 200, { results: [{ id: 1 }], next: `${service.url.replace('//', '//tok_abc@')}/api/v1/svc/transactions?page=2` }));
    const error = await failure(client().transactions.list({ deal_id: 1 }));
    expect((error as ResponseValidationError).body).toBe(`${service.url}/api/v1/svc/transactions?page=2`);
    expect(inspect(error, { depth: 10 })).not.toContain('tok_abc');
    expect(service.requests).toHaveLength(1);
  });

  it('a next with credentials is refused without quoting them, and nothing more is sent', async () => {
    const password = 'hunter2-page-secret';
    service.handle((_request, response) =>
      sendJson(response, 200, { results: [{ id: 1 }], next: `${service.url.replace('//', `//admin:${password}@`)}/api/v1/svc/transactions?page=2` }),
    );
    const error = await failure(client().transactions.list({ deal_id: 1 }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toBe(
      '[svc-sdk] transactions.list: unexpected response from the service: next: the next page URL carries credentials (user:password@), which the SDK never sends: the list stops here',
    );
    expect((error as ResponseValidationError).body).toBe(`${service.url}/api/v1/svc/transactions?page=2`);
    expect(inspect(error, { depth: 10 })).not.toContain(password);
    expect(inspect(error, { depth: 10 })).not.toContain('admin');
    expect(service.requests).toHaveLength(1);
  });
});
