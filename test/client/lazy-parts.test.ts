// The parts of the Client loaded on first use are chunks of their own in an app's bundle; in a browser
// they come over the network, so loading one can fail like a request (offline, or a deployment that no
// longer serves the chunk). Each such failure is the call's APIConnectionError, never the loader's raw
// TypeError. Here the loader of each chunk fails as a browser's does.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY } from '../support/msw.js';

const service = useLoopbackServer();
const CHUNK_FAILED = "Failed to fetch dynamically imported module: https://app.example/assets/chunk-4f2a.js";

/** A fresh Client whose chunk `part` (a module of src/core or src/shared) fails to load. */
async function clientWithout(part: string) {
  vi.resetModules();
  vi.doMock(part, () => {
    throw new TypeError(CHUNK_FAILED);
  });
  const sdk = await import('../../src/index.node.js');
  return { sdk, client: new sdk.Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0 }) };
}

afterEach(() => {
  vi.doUnmock('../../src/core/redirects.js');
  vi.doUnmock('../../src/core/raw-request.js');
  vi.doUnmock('../../src/shared/fetch-failure.js');
  vi.doUnmock('../../src/core/hooks.js');
  vi.resetModules();
});

describe('a chunk that fails to load is the call\'s APIConnectionError', () => {
  it('a redirect\'s rules', async () => {
    const { sdk, client } = await clientWithout('../../src/core/redirects.js');
    service.handle((_request, response) => {
      response.writeHead(302, { location: '/api/v1/rooms/2' }).end();
    });
    const error = await client.transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.APIConnectionError);
    expect((error as Error).message).toMatch(/^GET \/api\/v1\/svc\/transactions\?deal_id=1 failed: svc-sdk could not load a part of itself/);
  });

  it('client.request\'s checks, and nothing is sent', async () => {
    const { sdk, client } = await clientWithout('../../src/core/raw-request.js');
    const error = await client.request({ method: 'POST', path: '/rooms' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.APIConnectionError);
    expect((error as Error).message).toMatch(/^POST \/api\/v1\/rooms failed: svc-sdk could not load a part of itself/);
    // A method that is no string (from JavaScript) cannot be checked without that part: the message says GET.
    const odd = await client.request({ method: 7 as never, path: '/rooms' }).catch((caught: unknown) => caught);
    expect((odd as Error).message).toMatch(/^GET \/api\/v1\/rooms failed: svc-sdk could not load a part of itself/);
    expect(service.requests).toHaveLength(0);
  });

  it('the runner of hooks, for a client that has some', async () => {
    vi.resetModules();
    vi.doMock('../../src/core/hooks.js', () => {
      throw new TypeError(CHUNK_FAILED);
    });
    const sdk = await import('../../src/index.node.js');
    service.handle((_request, response) => sendJson(response, 200, [{ id: 1 }]));
    const client = new sdk.Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0, hooks: { afterResponse: () => undefined } });
    const error = await client.transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.APIConnectionError);
    expect((error as Error).message).toMatch(/^GET \/api\/v1\/svc\/transactions failed: svc-sdk could not load a part of itself/);
    expect(service.requests).toHaveLength(0);
    // An empty list of sets is no hooks: such a client never needs the runner.
    const none = new sdk.Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0, hooks: [] });
    await expect(none.transactions.list({ deal_id: 1 })).resolves.toEqual([{ id: 1 }]);
    await expect(client.transactions.list({ deal_id: 1 }, { hooks: [] })).rejects.toBeInstanceOf(sdk.APIConnectionError);
    await expect(none.transactions.list({ deal_id: 1 }, { hooks: [] })).resolves.toEqual([{ id: 1 }]);
  });

  it('the words of a failed connection: the error keeps fetch\'s own', async () => {
    const { sdk } = await clientWithout('../../src/shared/fetch-failure.js');
    const offline = new sdk.Client({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    const error = await offline.transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.APIConnectionError);
    expect((error as Error).message).toMatch(/^GET \/api\/v1\/svc\/transactions\?deal_id=1 failed: could not reach 127\.0\.0\.1:9/);
  });
});

// The other side of loading on first use: a call that never needs a chunk never loads it, so an app
// whose chunk is gone (or a bundle that left it out) still works for everything else.
describe('a call that needs no chunk works without it', () => {
  it('an answer that is no redirect, a 2xx or an error status, never loads the redirect rules', async () => {
    const { sdk, client } = await clientWithout('../../src/core/redirects.js');
    service.handle((request, response) => (request.url!.includes('missing') ? sendJson(response, 404, { error: 'no such room' }) : sendJson(response, 200, [{ id: 1 }])));
    await expect(client.request({ method: 'GET', path: '/rooms' })).resolves.toEqual([{ id: 1 }]);
    const error = await client.request({ method: 'GET', path: '/rooms/missing' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.NotFoundError);
    // A 400, the lowest error status, as well.
    service.handle((_request, response) => sendJson(response, 400, { error: 'bad query' }));
    expect(await client.request({ method: 'GET', path: '/rooms' }).catch((caught: unknown) => caught)).toBeInstanceOf(sdk.BadRequestError);
  });
});
