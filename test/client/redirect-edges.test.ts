// The client's redirect handling as a browser's fetch drives it: with redirect 'manual' a browser
// answers an opaque stand-in (type 'opaqueredirect', status 0) that hides where the redirect goes.
// Node's fetch never makes one, so a custom `fetch` (the client's own option) plays the browser;
// the rest (a 3xx with no body, failures that are no Error, an upload's network error) too.
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { APIConnectionError, APIError, Client } from '../../src/index.node.js';
import { failure } from '../support/failure.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();
const DEAL = `${BASE_URL}/api/v1/svc/deals/7`;

/** What a browser's fetch answers for a redirect under `redirect: 'manual'`. */
function opaqueRedirect(): Response {
  const response = new Response(null, { status: 200 });
  Object.defineProperties(response, {
    type: { value: 'opaqueredirect' },
    status: { value: 0 },
    ok: { value: false },
  });
  return response;
}

const ok = (data: unknown) => Response.json({ success: true, data });
type Call = [string, RequestInit | undefined];

describe("a browser's opaque redirect", () => {
  it('a GET lets the browser follow it: fetched again with the same method and headers and no manual redirect', async () => {
    const calls: Call[] = [];
    const fetch = vi.fn(async (url: string, init?: RequestInit) => {
      calls.push([url, init]);
      return calls.length === 1 ? opaqueRedirect() : ok({ id: 7, name: 'Deal 7' });
    });
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    await expect(client.request({ method: 'GET', path: '/svc/deals/7' })).resolves.toEqual({ id: 7, name: 'Deal 7' });
    expect(calls).toHaveLength(2);
    const [[firstUrl, first], [secondUrl, second]] = calls as [Call, Call];
    expect(secondUrl).toBe(firstUrl);
    expect(first?.redirect).toBe('manual');
    expect(second?.method).toBe('GET');
    expect(second?.redirect).toBeUndefined(); // the browser follows, and drops Authorization across origins itself
    expect(new Headers(second?.headers).get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(second?.signal).toBeInstanceOf(AbortSignal);
  });

  it("a write's opaque redirect is an APIError that says the browser hides where to, sent once", async () => {
    const fetch = vi.fn(async () => opaqueRedirect());
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    const error = (await failure(client.request({ method: 'PATCH', path: '/svc/deals/7', json: { name: 'x' } }))) as APIError;
    expect(error).toBeInstanceOf(APIError);
    expect(error.message).toBe(
      'PATCH /api/v1/svc/deals/7 failed with 0, a redirect (the browser hides where to): a write never follows a redirect, so it was not sent again: check baseUrl',
    );
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe("a list page's opaque redirect", () => {
  /** A page answered at `url`, as a browser's fetch reports it after following a redirect. */
  const pageAt = (url: string, ids: number[]) => {
    const response = Response.json({ results: ids.map((id) => ({ id })), next: null });
    Object.defineProperty(response, 'url', { value: url });
    return response;
  };
  const listWith = (finalUrl: string) => {
    const fetch = vi.fn(async () => (fetch.mock.calls.length === 1 ? opaqueRedirect() : pageAt(finalUrl, [666])));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    return client.transactions.list({ deal_id: 1 });
  };

  it('that the browser followed to another origin is an APIError: that origin\'s items never join the list', async () => {
    const error = (await failure(listWith('https://elsewhere.test/api/v1/svc/transactions?deal_id=1'))) as APIError;
    expect(error).toBeInstanceOf(APIError);
    expect(error.message).toBe(
      'GET /api/v1/svc/transactions?deal_id=1 failed with 200, a redirect to https://elsewhere.test/api/v1/svc/transactions?deal_id=1: a page of a list is never read from another origin, so its items cannot join the list',
    );
  });

  it('that the browser followed to another origin with an empty answer is refused the same way', async () => {
    const fetch = vi.fn(async () => {
      if (fetch.mock.calls.length === 1) return opaqueRedirect();
      const empty = new Response(null, { status: 204 });
      Object.defineProperty(empty, 'url', { value: 'https://elsewhere.test/x' });
      return empty;
    });
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    const error = await failure(client.transactions.list({ deal_id: 1 }));
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(204);
  });

  it('a GET that is not a page may be followed by the browser to another origin', async () => {
    const fetch = vi.fn(async () => (fetch.mock.calls.length === 1 ? opaqueRedirect() : pageAt('https://elsewhere.test/deal', [1])));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    await expect(client.request({ method: 'GET', path: '/svc/deals/7' })).resolves.toEqual({ results: [{ id: 1 }], next: null });
  });

  it('that the browser followed on the same origin is read', async () => {
    await expect(listWith(`${BASE_URL}/api/v1/svc/transactions?deal_id=1&moved=1`)).resolves.toEqual([{ id: 666 }]);
  });
});

describe("the Location a redirect error quotes", () => {
  /** The message of a PATCH answered 307 with this Location. */
  async function messageFor(location: string): Promise<string> {
    const fetch = vi.fn(async () => new Response(null, { status: 307, headers: { location } }));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    return ((await failure(client.request({ method: 'PATCH', path: '/svc/deals/7', json: {} }))) as Error).message;
  }
  const why = 'a write never follows a redirect, so it was not sent again: check baseUrl';

  it.each([
    ['user and password', 'https://admin:hunter2@evil.test/x', 'https://[redacted]:[redacted]@evil.test/x'],
    ['a user name alone', 'https://tok_abc@evil.test/x', 'https://[redacted]@evil.test/x'],
    ['a presigned query', 'https://bucket.test/f?X-Amz-Signature=abc&X-Amz-Credential=def&v=1', 'https://bucket.test/f?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&v=1'],
    ['none, relative: quoted as sent', '/api/v1/elsewhere', '/api/v1/elsewhere'],
    ['none, not a URL: quoted as sent', 'http://[', 'http://['],
  ])('credentials (%s) are redacted', async (_name, location, quoted) => {
    expect(await messageFor(location)).toBe(`PATCH /api/v1/svc/deals/7 failed with 307, a redirect to ${quoted}: ${why}`);
  });
});

describe('other answers and failures of a custom fetch', () => {
  it('a 302 with no body at all is followed', async () => {
    const urls: string[] = [];
    const fetch = vi.fn(async (url: string) => {
      urls.push(url);
      return urls.length === 1 ? new Response(null, { status: 302, headers: { location: '/api/v1/svc/deals/8' } }) : ok({ id: 8 });
    });
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    await expect(client.request({ method: 'GET', path: '/svc/deals/7' })).resolves.toEqual({ id: 8 });
    expect(urls).toEqual([DEAL, `${BASE_URL}/api/v1/svc/deals/8`]);
  });

  it('a fetch that rejects with undefined is an APIConnectionError, not a TypeError', async () => {
    const fetch = vi.fn(() => Promise.reject(undefined));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    const error = (await failure(client.request({ method: 'GET', path: '/svc/deals/7' }))) as APIConnectionError;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.url).toBe(DEAL);
    expect(error.message).toBe('GET /api/v1/svc/deals/7 failed: could not reach svc.test:443');
  });

  it("a GET's network error caused by 'unexpected redirect' (a fetch wrapper refusing redirects) does not blame an upload", async () => {
    const fetch = vi.fn(() => Promise.reject(new TypeError('fetch failed', { cause: new Error('unexpected redirect') })));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    const error = (await failure(client.request({ method: 'GET', path: '/svc/deals/7' }))) as APIConnectionError;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.message).toBe('GET /api/v1/svc/deals/7 failed: could not reach svc.test:443');
  });

  it("an upload's plain network error is an APIConnectionError that does not speak of redirects", async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms/5/documents`, () => HttpResponse.error()));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off' });
    const error = (await failure(client.documents.upload(5, new TextEncoder().encode('hello'), { filename: 'a.txt' }))) as APIConnectionError;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.message).toBe('POST /api/v1/rooms/5/documents failed: could not reach svc.test:443');
  });

  it("an upload's network error with no further cause (a bare 'fetch failed') is an APIConnectionError", async () => {
    const fetch = vi.fn(() => Promise.reject(new TypeError('fetch failed')));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off', fetch: fetch as typeof globalThis.fetch });
    const error = (await failure(client.documents.upload(5, new TextEncoder().encode('hello'), { filename: 'a.txt' }))) as APIConnectionError;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.message).toBe('POST /api/v1/rooms/5/documents failed: could not reach svc.test:443');
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
