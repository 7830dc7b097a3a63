// Edges of the core that mutation testing found unguarded: bodies that are not what their content
// type says, empty error bodies, issue formatting, logger checks, the escape hatch's path check,
// and when a DELETE's 404 counts as deleted.
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIError,
  Client,
  InternalServerError,
  NotFoundError,
  ResponseValidationError,
  ValidationError,
} from '../../src/index.node.js';
import { failure } from '../support/failure.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';

const server = useMockService();
const requests = recordRequests(server);
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off' });
const retrying = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, logLevel: 'off' });
const WEBHOOK = `${BASE_URL}/api/v1/webhooks/3/`;
const TRANSACTIONS = `${BASE_URL}/api/v1/svc/transactions`;

afterEach(() => {
  requests.length = 0;
  vi.unstubAllEnvs();
});

/** A quick retry: 503 with Retry-After: 0. */
const unavailable = () => HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } });

describe('bodies that are not what their content type says', () => {
  it('a 2xx JSON body that does not parse is a ResponseValidationError saying so, with the text kept', async () => {
    server.use(http.get(TRANSACTIONS, () => new HttpResponse('{"success": tru', { headers: { 'content-type': 'application/json' } })));
    const error = (await failure(client.transactions.list({ deal_id: 1 }))) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toBe('[svc-sdk] transactions.list: unexpected response from the service: the body is not valid JSON');
    expect(error.issues).toEqual([{ path: [], message: 'the body is not valid JSON' }]);
    expect(error.body).toBe('{"success": tru');
  });

  it('an empty error body under a JSON content type is no body: the message is the status alone', async () => {
    server.use(http.get(TRANSACTIONS, () => new HttpResponse('', { status: 500, headers: { 'content-type': 'application/json' } })));
    const error = (await failure(client.transactions.list({ deal_id: 1 }))) as APIError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.body).toBeUndefined();
    expect(error.message).toBe('GET /api/v1/svc/transactions?deal_id=1 failed with 500');
  });

  it('an error body that says JSON but is not (a proxy page) is kept as its text', async () => {
    const page = '<html>Bad gateway</html>';
    server.use(http.get(TRANSACTIONS, () => new HttpResponse(page, { status: 404, headers: { 'content-type': 'application/json' } })));
    const error = (await failure(client.transactions.list({ deal_id: 1 }))) as APIError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.body).toBe(page);
    expect(error.message).toBe('GET /api/v1/svc/transactions?deal_id=1 failed with 404: application/json answer of 24 bytes (kept whole on error.body)');
  });

  it('an error body of JSON text under a text content type is not parsed', async () => {
    const text = '{"error":"looks like JSON"}';
    server.use(http.get(TRANSACTIONS, () => new HttpResponse(text, { status: 404, headers: { 'content-type': 'text/plain' } })));
    const error = (await failure(client.transactions.list({ deal_id: 1 }))) as APIError;
    expect(error.body).toBe(text);
  });

  it('an operation that answers nothing, given bytes with no content type at all, says so', async () => {
    server.use(http.delete(WEBHOOK, () => new HttpResponse(new TextEncoder().encode('<p>signed out</p>'), { status: 200 })));
    const error = (await failure(client.webhooks.delete(3))) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toBe('[svc-sdk] webhooks.delete: unexpected response from the service: expected an empty or JSON answer, got no content type');
  });
});

describe('error objects', () => {
  it('an APIConnectionError made without options has the default message', () => {
    const error = new APIConnectionError('GET', `${BASE_URL}/api/v1/rooms?page=2`);
    expect(error.message).toBe('GET /api/v1/rooms?page=2 failed: could not reach svc.test:443');
    expect(error.cause).toBeUndefined();
  });

  it("an issue's 'Invalid input' becomes 'expected <type>' only for a wrong type", () => {
    const error = new ValidationError('deals.create', [
      { path: ['stage'], message: 'Invalid input', code: 'invalid_union' },
      { path: ['name'], message: 'Invalid input', code: 'custom', expected: 'string' },
      { path: ['amount'], message: 'Invalid input', code: 'invalid_type' },
      { path: ['id'], message: 'Invalid input', code: 'invalid_type', expected: 'number' },
    ]);
    expect(error.message).toBe('[svc-sdk] deals.create: stage: Invalid input; name: Invalid input; amount: Invalid input; id: expected number. Nothing was sent.');
  });
});

describe('client options', () => {
  it('an unknown logLevel is quoted cut to 20 characters', () => {
    const level = 'x'.repeat(50);
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logLevel: level as 'off' })).toThrow(
      `logLevel must be one of 'debug', 'info', 'warn', 'error' or 'off' (got '${'x'.repeat(20)}')`,
    );
  });

  it('a logger of null is a ValidationError naming logger, not a TypeError', () => {
    let error: unknown;
    try {
      new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logger: null as never });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('logger must have debug, info, warn and error methods, as console does');
  });

  it('an unknown SVC_LOG is warned about, quoted cut to 20 characters', () => {
    vi.stubEnv('SVC_LOG', 'y'.repeat(50));
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logger });
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![0]).toBe(
      `[svc-sdk] SVC_LOG must be one of 'debug', 'info', 'warn', 'error' or 'off' (got '${'y'.repeat(20)}'): logging at 'warn'`,
    );
  });
});

describe('client.request paths', () => {
  it("'..' after the '?' of a path is query, not a climb: sent", async () => {
    server.use(http.get(`${BASE_URL}/api/v1/files`, ({ request }) => HttpResponse.json({ back: new URL(request.url).searchParams.get('back') })));
    await expect(client.request({ method: 'GET', path: '/files?back=/../x' })).resolves.toEqual({ back: '/../x' });
  });

  // A path of plain segments is sent as written, with no URL parsed for it (raw-request.ts): every other
  // path is judged as the parser resolves it, so one that looks plain but is not is still refused.
  it.each([
    ['/..', "path must stay under /api/v1, but it resolves to /api/: remove its '..' segments"],
    ['..', "path must stay under /api/v1, but it resolves to /api/: remove its '..' segments"],
    ['/rooms/../admin', "path must not have '..' segments: name the endpoint itself"],
    ['/rooms/..', "path must not have '..' segments: name the endpoint itself"],
    ['/%2e%2e/admin', "path must stay under /api/v1, but it resolves to /api/admin: remove its '..' segments"],
    ['/rooms\t', 'path must not contain control characters (tab, line break): remove them'],
  ])('a path the parser would change is refused, and nothing is sent: %j', async (path, message) => {
    const error = (await failure(client.request({ method: 'GET', path }))) as ValidationError;
    expect(error.issues).toEqual([{ path: ['path'], message }]);
    expect(requests).toHaveLength(0);
  });

  it('a path of plain segments is sent as written: letters, digits, _, - and ~, a trailing slash kept', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/*`, ({ request }) => HttpResponse.json({ path: new URL(request.url).pathname })));
    await expect(client.request({ method: 'GET', path: '/Rooms_1/a-b~c/' })).resolves.toEqual({ path: '/api/v1/Rooms_1/a-b~c/' });
  });

  it("a climbing path's issue names the field path", async () => {
    const error = (await failure(client.request({ method: 'GET', path: '/../admin' }))) as ValidationError;
    expect(error.issues).toEqual([{ path: ['path'], message: "path must stay under /api/v1, but it resolves to /api/admin: remove its '..' segments" }]);
    expect(requests).toHaveLength(0);
  });
});

describe("when a DELETE's 404 counts as deleted", () => {
  it('a 404 on the first attempt is NotFoundError: nothing says an earlier attempt deleted it', async () => {
    server.use(http.delete(WEBHOOK, () => HttpResponse.json({ error: 'not found' }, { status: 404 })));
    expect(await failure(retrying.webhooks.delete(3))).toBeInstanceOf(NotFoundError);
    expect(requests).toHaveLength(1);
  });

  it('a retried DELETE that keeps failing with 503 is an InternalServerError, not a success', async () => {
    server.use(http.delete(WEBHOOK, unavailable));
    const error = (await failure(retrying.webhooks.delete(3))) as APIError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(503);
    expect(requests).toHaveLength(2);
  });

  it('a retried DELETE that cannot reach the service is an APIConnectionError, not a success', async () => {
    server.use(http.delete(WEBHOOK, () => HttpResponse.error()));
    expect(await failure(retrying.webhooks.delete(3))).toBeInstanceOf(APIConnectionError);
  });

  it('a retried GET whose retry gets 404 is NotFoundError: only a DELETE is done when gone', async () => {
    let calls = 0;
    server.use(http.get(`${BASE_URL}/api/v1/status`, () => (++calls === 1 ? unavailable() : HttpResponse.json({ error: 'gone' }, { status: 404 }))));
    expect(await failure(retrying.request({ method: 'GET', path: '/status' }))).toBeInstanceOf(NotFoundError);
    expect(calls).toBe(2);
  });

  it('a retried DELETE that answers something, whose retry gets 404, is NotFoundError', async () => {
    let calls = 0;
    server.use(http.delete(`${BASE_URL}/api/v1/things/1`, () => (++calls === 1 ? unavailable() : HttpResponse.json({ error: 'gone' }, { status: 404 }))));
    expect(await failure(retrying.request({ method: 'DELETE', path: '/things/1' }))).toBeInstanceOf(NotFoundError);
    expect(calls).toBe(2);
  });
});

describe('debug lines', () => {
  it('name the request id when the service sent one, and say nothing more when it did not', async () => {
    server.use(
      http.get(`${BASE_URL}/api/v1/with-id`, () => HttpResponse.json(null, { headers: { 'x-request-id': 'req_42' } })),
      http.get(`${BASE_URL}/api/v1/without-id`, () => HttpResponse.json(null)),
    );
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const debugging = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'debug', logger });
    await debugging.request({ method: 'GET', path: '/with-id' });
    await debugging.request({ method: 'GET', path: '/without-id' });
    const lines = logger.debug.mock.calls.map(([line]) => String(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[svc-sdk\] GET https:\/\/svc\.test\/api\/v1\/with-id → 200 in \d+ ms \(attempt 1, request id req_42\)$/);
    expect(lines[1]).toMatch(/^\[svc-sdk\] GET https:\/\/svc\.test\/api\/v1\/without-id → 200 in \d+ ms \(attempt 1\)$/);
  });

  it("the give-up line (at info) names the status, and nothing after the error's name when there is none", async () => {
    server.use(
      http.get(`${BASE_URL}/api/v1/busy`, unavailable),
      http.get(`${BASE_URL}/api/v1/down`, () => HttpResponse.error()),
    );
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const informing = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, logLevel: 'info', logger });
    await failure(informing.request({ method: 'GET', path: '/busy' }));
    await failure(informing.request({ method: 'GET', path: '/down' }));
    expect(logger.warn).not.toHaveBeenCalled();
    expect(logger.info.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('gave up'))).toEqual([
      `[svc-sdk] GET ${BASE_URL}/api/v1/busy gave up after 2 attempts: InternalServerError 503`,
      `[svc-sdk] GET ${BASE_URL}/api/v1/down gave up after 2 attempts: APIConnectionError`,
    ]);
  });
});
