// client.request's path is judged on the URL the parser resolves, not on the text: the WHATWG URL
// parser strips TAB, CR and LF, and would then resolve the `..` they hid. A real server shows
// nothing reaches the wire.
import { describe, expect, it } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { failure } from '../support/failure.js';
import { useLoopbackServer, sendJson } from '../support/loopback.js';
import { API_KEY } from '../support/msw.js';

const service = useLoopbackServer();
const client = () => new Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0 });

describe('client.request paths with control characters', () => {
  it.each([
    ['TAB', '/.\t./.\t./admin'],
    ['LF', '/.\n./.\n./admin'],
    ['CR', '/.\r./.\r./admin'],
    ['TAB inside %2e%2e', '/%2e\t%2e/%2e\t%2e/admin'],
    ['NUL', '/rooms\u0000'],
    ['DEL', '/rooms/\u007f'],
  ])('a path with %s is a ValidationError, and nothing is sent', async (_name, path) => {
    service.handle((_request, response) => sendJson(response, 200, { admin: true }));
    const error = await failure(client().request({ method: 'GET', path }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: ['path'], message: 'path must not contain control characters (tab, line break): remove them' }]);
    expect(service.requests).toEqual([]);
  });

  it('a plain path is sent as written', async () => {
    service.handle((_request, response) => sendJson(response, 200, { ok: true }));
    await expect(client().request({ method: 'GET', path: '/rooms/7', query: { q: 'a\tb' } })).resolves.toEqual({ ok: true });
    expect(service.requests.map(({ url }) => url)).toEqual(['/api/v1/rooms/7?q=a%09b']);
  });
});

describe("client.request paths with a '..' segment that stays under /api/v1", () => {
  it.each([
    ['at the end', '/rooms/..'],
    ['at the end, percent-encoded', '/rooms/%2e%2E'],
    ['before a query', '/rooms/..?page=2'],
    ['in the middle', '/rooms/../webhooks'],
  ])('%s is a ValidationError, and nothing is sent', async (_name, path) => {
    service.handle((_request, response) => sendJson(response, 200, { admin: true }));
    const error = await failure(client().request({ method: 'GET', path }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: ['path'], message: "path must not have '..' segments: name the endpoint itself" }]);
    expect(service.requests).toHaveLength(0);
  });

  it("a query or fragment that holds '..' is no segment: sent", async () => {
    service.handle((_request, response) => sendJson(response, 200, []));
    await client().request({ method: 'GET', path: '/rooms?q=/../x' });
    expect(service.requests.map((request) => request.url)).toEqual(['/api/v1/rooms?q=/../x']);
  });
});
