import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { APIError, Client, ConflictError, UnprocessableEntityError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

// Error bodies whose `error` (or `message`, `detail`) is a structured object rather than a string,
// as many services send: `{ error: { code, message } }`. The whole body stays on the error, and
// the message quotes the object, so neither its code nor its words are lost.

const server = useMockService();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off' });
const ROOMS = `${BASE_URL}/api/v1/rooms`;
const roomParams = { name: 'VDR', room_type: 'company_investment' };

async function failure(promise: Promise<unknown>): Promise<APIError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

describe('structured error objects in error bodies', () => {
  it('{ error: { code, message } } keeps the object on body and quotes it in the message', async () => {
    const body = { error: { code: 'room_type_invalid', message: 'room_type is not allowed here' } };
    server.use(http.post(ROOMS, () => HttpResponse.json(body, { status: 422 })));
    const error = await failure(client.rooms.create(roomParams));
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.body).toEqual(body);
    expect(error.message).toBe('POST /api/v1/rooms failed with 422: {"code":"room_type_invalid","message":"room_type is not allowed here"}');
  });

  it('a { success: false, error: { code, message } } envelope with a 200 status is an APIError quoting the object', async () => {
    const body = { success: false, error: { code: 'quota', message: 'room quota reached' } };
    server.use(http.post(ROOMS, () => HttpResponse.json(body)));
    const error = await failure(client.rooms.create(roomParams));
    expect(error.status).toBe(200);
    expect(error.body).toEqual(body);
    expect(error.message).toBe('POST /api/v1/rooms failed with 200: {"code":"quota","message":"room quota reached"}');
  });

  it('`error` comes before `message` and `detail` when a body has several', async () => {
    const body = { detail: 'third', message: { text: 'second' }, error: { code: 'first' } };
    server.use(http.post(ROOMS, () => HttpResponse.json(body, { status: 409 })));
    const error = await failure(client.rooms.create(roomParams));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toBe('POST /api/v1/rooms failed with 409: {"code":"first"}');
  });

  it.each([
    ['message', { message: { code: 'locked', reason: 'room is locked' } }, '{"code":"locked","reason":"room is locked"}'],
    ['detail', { detail: [{ loc: ['body', 'name'], msg: 'field required' }] }, '[{"loc":["body","name"],"msg":"field required"}]'],
  ])('a structured `%s` is quoted as JSON', async (_, body, quoted) => {
    server.use(http.post(ROOMS, () => HttpResponse.json(body, { status: 400 })));
    const error = await failure(client.rooms.create(roomParams));
    expect(error.body).toEqual(body);
    expect(error.message).toBe(`POST /api/v1/rooms failed with 400: ${quoted}`);
  });

  it('a long error object is quoted up to 200 characters; body keeps all of it', async () => {
    const body = { error: { code: 'too_long', message: 'x'.repeat(500) } };
    server.use(http.post(ROOMS, () => HttpResponse.json(body, { status: 422 })));
    const error = await failure(client.rooms.create(roomParams));
    const quoted = error.message.slice('POST /api/v1/rooms failed with 422: '.length);
    expect(quoted).toBe(JSON.stringify(body.error).slice(0, 200));
    expect(error.body).toEqual(body);
  });

  it('an error answer of webhooks.create (which returns a secret) keeps its reason, and the secret on none of body, message or inspect()', async () => {
    const signingSecret = 'whsec_structured_error_secret_value';
    const body = { error: { code: 'conflict', message: 'endpoint exists', endpoint: { id: 3, secret: signingSecret } } };
    server.use(http.post(`${BASE_URL}/api/v1/webhooks`, () => HttpResponse.json(body, { status: 409 })));
    const error = await failure(client.webhooks.create({ url: 'https://example.com/hook', name: 'CRM', event_types: ['deal.created'] }));
    expect(error.body).toEqual({ error: { code: 'conflict', message: 'endpoint exists', endpoint: { id: 3, secret: '[redacted]' } } });
    expect(error.message).not.toContain(signingSecret);
    expect(inspect(error, { depth: 10 })).not.toContain(signingSecret);
    expect(JSON.stringify(error)).not.toContain(signingSecret);
    expect(error.message).toBe('POST /api/v1/webhooks/ failed with 409: {"code":"conflict","message":"endpoint exists","endpoint":{"id":3,"secret":"[redacted]"}}');
  });

  it('an empty error object is quoted as {} rather than dropped', async () => {
    server.use(http.post(ROOMS, () => HttpResponse.json({ error: {} }, { status: 500 })));
    const error = await failure(client.rooms.create(roomParams));
    expect(error.message).toBe('POST /api/v1/rooms failed with 500: {}');
  });
});
