import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  Client,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  SvcError,
  UnprocessableEntityError,
} from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const roomParams = { name: 'VDR', room_type: 'company_investment' };

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('errors', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [503, InternalServerError],
    [418, APIError],
  ])('a %i answer throws %o with status, body, headers, method, url and request id', async (status, ErrorClass) => {
    server.use(
      http.post(`${BASE_URL}/api/v1/rooms`, () =>
        HttpResponse.json({ error: 'room_type is not allowed', field: 'room_type' }, { status, headers: { 'x-request-id': 'req_42' } }),
      ),
    );
    const error = await failure(client.rooms.create(roomParams));
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(SvcError);
    const apiError = error as APIError;
    expect(apiError.name).toBe(ErrorClass.name);
    expect(apiError.status).toBe(status);
    expect(apiError.body).toEqual({ error: 'room_type is not allowed', field: 'room_type' });
    expect(apiError.headers.get('x-request-id')).toBe('req_42');
    expect(apiError.requestId).toBe('req_42');
    expect(apiError.method).toBe('POST');
    expect(apiError.url).toBe(`${BASE_URL}/api/v1/rooms`);
    expect(apiError.message).toBe(`POST /api/v1/rooms failed with ${status}: room_type is not allowed`);
  });

  it('a text error body is kept as text, and the message names its type and length instead of quoting it', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => new HttpResponse('upstream down', { status: 404 })));
    const error = (await failure(client.transactions.list({ deal_id: 1 }))) as NotFoundError;
    expect(error.body).toBe('upstream down');
    expect(error.message).toBe('GET /api/v1/svc/transactions?deal_id=1 failed with 404: text/plain answer of 13 bytes (kept whole on error.body)');
  });

  it('a { success: false } envelope with a 200 status is an APIError', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json({ success: false, message: 'quota reached' })));
    const error = (await failure(client.rooms.create(roomParams))) as APIError;
    expect(error).toBeInstanceOf(APIError);
    expect(error.status).toBe(200);
    expect(error.body).toEqual({ success: false, message: 'quota reached' });
    expect(error.message).toContain('quota reached');
  });

  it('a known field of the wrong type throws ResponseValidationError naming the field', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json({ success: true, data: { id: 'five', name: 'VDR' } })));
    const error = (await failure(client.rooms.create(roomParams))) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toBe('[svc-sdk] rooms.create: unexpected response from the service: id: expected number');
    expect(error.issues[0]?.path).toEqual(['id']);
    expect(error.body).toEqual({ id: 'five', name: 'VDR' });
  });

  it('a JSON content type with a body that is not JSON throws ResponseValidationError', async () => {
    server.use(
      http.post(`${BASE_URL}/api/v1/rooms`, () => new HttpResponse('{oops', { headers: { 'content-type': 'application/json' } })),
    );
    const error = await failure(client.rooms.create(roomParams));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).body).toBe('{oops');
  });

  it('a refused connection throws APIConnectionError with the cause', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.error()));
    const error = (await failure(client.rooms.create(roomParams))) as APIConnectionError;
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.message).toBe('POST /api/v1/rooms failed: could not reach svc.test:443');
    expect(error.cause).toBeDefined();
  });

  it('no answer within timeout throws APITimeoutError', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => new Promise<never>(() => {})));
    const error = await failure(client.rooms.create(roomParams, { timeout: 50 }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe('POST /api/v1/rooms timed out after 50 ms: raise `timeout` or try again');
  });

  it('an aborted signal stops the call with APIUserAbortError (issue 31: it was an APIConnectionError)', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => new Promise<never>(() => {})));
    const controller = new AbortController();
    const pending = failure(client.rooms.create(roomParams, { signal: controller.signal }));
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toContain("cancelled by the caller's signal");
    expect((error as APIUserAbortError).url).toBe(`${BASE_URL}/api/v1/rooms`);
  });

  it("a cancelled call's APIUserAbortError shows no credential of its URL (message, url, inspect, JSON)", async () => {
    const controller = new AbortController();
    const cancelled = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      // Cancelled once the request is on its way: the error is made from the URL that was sent.
      fetch: (_input, init) => {
        queueMicrotask(() => controller.abort());
        return new Promise<never>((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
      },
    });
    const query = { access_token: 'T1accesstoken', q: 'kept' };
    const error = (await failure(cancelled.request({ method: 'GET', path: '/rooms', query }, { signal: controller.signal }))) as APIUserAbortError;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error.url).toBe(`${BASE_URL}/api/v1/rooms?access_token=[redacted]&q=kept`);
    for (const shown of [error.message, error.url, inspect(error, { depth: 10 }), JSON.stringify(error)]) expect(shown).not.toContain('T1accesstoken');
  });

  it('the API key appears in no message, JSON, String() or inspect() of an error, nor of the client', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json({ error: 'nope' }, { status: 401 })));
    const apiError = await failure(client.rooms.create(roomParams));
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.error()));
    const connectionError = await failure(client.rooms.create(roomParams));
    for (const subject of [apiError, connectionError, client]) {
      const renderings = [
        String(subject),
        JSON.stringify(subject),
        inspect(subject, { depth: 10, showHidden: true }),
        subject instanceof Error ? (subject.stack ?? '') : '',
      ];
      for (const text of renderings) expect(text).not.toContain(API_KEY);
    }
  });
});
