import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  Client,
  InternalServerError,
  NotFoundError,
  ResponseValidationError,
  ValidationError,
} from '../../src/index.node.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';
import { failure } from '../support/failure.js';

const server = useMockService();
const requests = recordRequests(server);
beforeEach(() => {
  requests.length = 0;
});
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const roomParams = { name: 'VDR', room_type: 'company_investment' };

describe('every failure is an SvcError', () => {
  it('a custom fetch that throws is an APIConnectionError with the original as cause, not "aborted"', async () => {
    const original = new Error('proxy refused the tunnel');
    const custom = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, fetch: async () => Promise.reject(original) });
    const error = await failure(custom.rooms.create(roomParams));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).cause).toBe(original);
    expect((error as Error).message).toBe('POST /api/v1/rooms failed: could not reach svc.test:443');
  });

  it.each([
    ['timeout above 2^31-1', { timeout: 2 ** 31 }, 'timeout must be a whole number of milliseconds from 1 to 2147483647'],
    ['timeout 0', { timeout: 0 }, 'timeout must be a whole number of milliseconds from 1 to 2147483647'],
    ['maxRetries -1', { maxRetries: -1 }, 'maxRetries must be a whole number, 0 or more'],
    ['maxRetries 1.5', { maxRetries: 1.5 }, 'maxRetries must be a whole number, 0 or more'],
    ['headers that are not an object', { headers: 'x-a: 1' as never }, 'headers must be an object of header names to string values'],
    ['signal that is not an AbortSignal', { signal: { aborted: false } as never }, 'signal must be an AbortSignal, such as AbortSignal.timeout(5_000)'],
  ])('a per-call %s is a ValidationError, nothing sent', async (_title, options, message) => {
    const error = await failure(client.transactions.list({ deal_id: 1 }, options));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe(`[svc-sdk] transactions.list: ${message}. Nothing was sent.`);
    expect(requests).toHaveLength(0);
  });

  it('a client timeout above 2^31-1 is a ValidationError at construction', () => {
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 2 ** 31 })).toThrow(
      '[svc-sdk] new Client(): timeout must be a whole number of milliseconds from 1 to 2147483647. Nothing was sent.',
    );
  });

  it('a JSON null body is a ResponseValidationError for a create, not a crash', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json(null)));
    const error = await failure(client.rooms.create(roomParams));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).body).toBeNull();
  });

  it('a JSON null error body is an APIError with body null', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json(null, { status: 500 })));
    const error = await failure(client.rooms.create(roomParams));
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).body).toBeNull();
    expect((error as Error).message).toBe('POST /api/v1/rooms failed with 500');
  });

  it('a JSON null body is fine for an operation that answers nothing, and comes back as it is from request()', async () => {
    server.use(
      http.delete(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.json(null)),
      http.get(`${BASE_URL}/api/v1/status`, () => HttpResponse.json(null)),
    );
    await expect(client.webhooks.delete(3)).resolves.toBeUndefined();
    await expect(client.request({ method: 'GET', path: '/status' })).resolves.toBeNull();
  });
});

describe('client.request stays under /api/v1', () => {
  it.each([
    ['/../admin', '/api/admin'],
    ['/rooms/../../admin', '/api/admin'],
    ['/rooms/%2e%2e/%2E%2E/admin', '/api/admin'],
    ['..', '/api/'],
    ['/rooms\\..\\..\\admin', '/api/admin'],
  ])('path %s resolves outside /api/v1: a ValidationError naming where, nothing sent', async (path, resolved) => {
    const error = await failure(client.request({ method: 'GET', path }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([{ path: ['path'], message: `path must stay under /api/v1, but it resolves to ${resolved}: remove its '..' segments` }]);
    expect((error as Error).message).toMatch(/\. Nothing was sent\.$/);
    expect(requests).toHaveLength(0);
  });

  it.each(['/rooms/.%2e/x', '/rooms/../rooms/7'])('path %s stays inside but with a .. segment: a ValidationError, nothing sent', async (path) => {
    const error = await failure(client.request({ method: 'GET', path }));
    expect((error as ValidationError).issues).toEqual([{ path: ['path'], message: "path must not have '..' segments: name the endpoint itself" }]);
    expect(requests).toHaveLength(0);
  });

  it('under a base URL with a path, the path must stay under that base\'s /api/v1', async () => {
    const gateway = new Client({ apiKey: API_KEY, baseUrl: `${BASE_URL}/gw`, maxRetries: 0 });
    const error = await failure(gateway.request({ method: 'GET', path: '/../../../api/v1/rooms' }));
    expect((error as ValidationError).issues).toEqual([{ path: ['path'], message: "path must stay under /api/v1, but it resolves to /api/v1/rooms: remove its '..' segments" }]);
    server.use(http.get(`${BASE_URL}/gw/api/v1`, () => HttpResponse.json({ root: true })));
    await expect(gateway.request({ method: 'GET', path: '' })).resolves.toEqual({ root: true });
  });

  it('dots inside a segment, and in the query, are fine', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/files/a..b`, () => HttpResponse.json({ ok: true })));
    await expect(client.request({ method: 'GET', path: '/files/a..b', query: { back: '../x' } })).resolves.toEqual({ ok: true });
  });
});

describe('operations that answer nothing', () => {
  it('a retried DELETE whose first answer was lost and whose retry gets 404 resolves as deleted', async () => {
    let deleted = false;
    server.use(
      http.delete(`${BASE_URL}/api/v1/webhooks/3/`, () => {
        if (deleted) return HttpResponse.json({ error: 'not found' }, { status: 404 });
        deleted = true;
        return HttpResponse.error(); // deleted, then the connection dropped before the answer
      }),
    );
    await expect(client.webhooks.delete(3, { maxRetries: 1 })).resolves.toBeUndefined();
    expect(requests).toHaveLength(2);
  });

  it('a DELETE answered 404 at its first attempt is still a NotFoundError', async () => {
    server.use(http.delete(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.json({ error: 'not found' }, { status: 404 })));
    await expect(client.webhooks.delete(3, { maxRetries: 2 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it.each([
    ['webhooks.delete', () => client.webhooks.delete(3), http.delete(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.html('<html>Sign in</html>'))],
    ['webhooks.ping', () => client.webhooks.ping(3), http.post(`${BASE_URL}/api/v1/webhooks/3/ping/`, () => HttpResponse.html('<html>Sign in</html>'))],
  ])('%s answered a 2xx HTML page is a ResponseValidationError, not success', async (operation, call, handler) => {
    server.use(handler);
    const error = await failure(call());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toBe(`[svc-sdk] ${operation}: unexpected response from the service: expected an empty or JSON answer, got text/html`);
  });
});

describe('secrets stay out of errors', () => {
  const SECRET = 'whsec_do_not_print_0123456789';

  function expectNoSecret(error: unknown) {
    expect(error).toBeInstanceOf(ResponseValidationError);
    for (const text of [String(error), JSON.stringify((error as ResponseValidationError).body), inspect(error, { depth: 10, showHidden: true })]) {
      expect(text).not.toContain(SECRET);
    }
  }

  it('webhooks.create answered an unexpected shape: the body keeps its fields, every string value redacted', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/webhooks/`, () => HttpResponse.json({ id: 'seven', secret: SECRET, event_types: null })));
    const error = await failure(client.webhooks.create({ url: 'https://example.com/h', name: 'h', event_types: null }));
    expectNoSecret(error);
    expect((error as ResponseValidationError).body).toEqual({ id: '[redacted]', secret: '[redacted]', event_types: null });
  });

  it('rotateSecret answered an unexpected shape, nested in the envelope', async () => {
    server.use(
      http.post(`${BASE_URL}/api/v1/webhooks/3/rotate-secret/`, () =>
        HttpResponse.json({ success: true, data: { secret: [SECRET], previous: { secret: SECRET } } }),
      ),
    );
    const error = await failure(client.webhooks.rotateSecret(3));
    expectNoSecret(error);
    expect((error as ResponseValidationError).body).toEqual({ secret: '[redacted]', previous: { secret: '[redacted]' } });
  });

  it('a body that is not valid JSON has its secret redacted from the text too', async () => {
    server.use(
      http.post(`${BASE_URL}/api/v1/webhooks/3/rotate-secret/`, () =>
        new HttpResponse(`{"secret": "${SECRET}", "oops`, { headers: { 'content-type': 'application/json' } }),
      ),
    );
    expectNoSecret(await failure(client.webhooks.rotateSecret(3)));
  });
});
