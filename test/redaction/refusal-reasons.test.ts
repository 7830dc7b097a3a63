// Refusals that say why: when webhooks.create or rotateSecret is refused (4xx, 5xx), the error keeps
// the service's reason (error, message, detail, per-field messages) on its body and in its message;
// only a `secret` (or a field named like a credential) and secret-looking values are redacted. Only a
// successful answer of an unexpected shape, where the secret may sit under any name, has every
// string redacted.
import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client, ConflictError, InternalServerError, ResponseValidationError, UnprocessableEntityError, type APIError } from '../../src/index.node.js';
import { failure } from '../support/failure.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const CREATE = `${BASE_URL}/api/v1/webhooks/`;
const ROTATE = `${BASE_URL}/api/v1/webhooks/3/rotate-secret/`;
const SECRET = 'whsec_refused_0123456789abcdef';
const params = { url: 'https://example.com/hook', name: 'CRM', event_types: ['deal.created'] };

/** Nothing of the secret anywhere on the error: message, body, inspect, JSON. */
function expectNoSecret(error: unknown, ...secrets: string[]): void {
  const shown = [(error as Error).message, JSON.stringify((error as APIError).body), inspect(error, { depth: 10 }), JSON.stringify(error)].join('\n');
  for (const secret of [SECRET, ...secrets]) expect(shown).not.toContain(secret);
}

describe('a refused webhooks.create keeps the service’s reason', () => {
  it('422 with error, detail and per-field messages: all kept on body and in the message; the secret it echoed is not', async () => {
    const answer = {
      error: 'url must use https',
      detail: 'http://example.com/hook is not accepted',
      errors: { url: ['must use https'], event_types: ['unknown kind: deal.exploded'] },
      secret: SECRET,
    };
    server.use(http.post(CREATE, () => HttpResponse.json(answer, { status: 422 })));
    const error = (await failure(client.webhooks.create(params))) as APIError;
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as APIError).body).toEqual({ ...answer, secret: '[redacted]' });
    expect(error.message).toBe('POST /api/v1/webhooks/ failed with 422: url must use https');
    expectNoSecret(error);
  });

  it('409 with a message and the endpoint it conflicts with: the message stays, the endpoint’s secret and signing key do not', async () => {
    const answer = { message: 'an endpoint with this url exists', endpoint: { id: 7, url: 'https://example.com/hook', secret: 'plain-looking', signing_key: 'k-123' } };
    server.use(http.post(CREATE, () => HttpResponse.json(answer, { status: 409 })));
    const error = (await failure(client.webhooks.create(params))) as APIError;
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as APIError).body).toEqual({ message: answer.message, endpoint: { id: 7, url: 'https://example.com/hook', secret: '[redacted]', signing_key: '[redacted]' } });
    expect(error.message).toBe('POST /api/v1/webhooks/ failed with 409: an endpoint with this url exists');
    expectNoSecret(error, 'plain-looking', 'k-123');
  });

  it('a text refusal (a proxy’s page) keeps its words, its secret-looking values hidden', async () => {
    server.use(http.post(CREATE, () => HttpResponse.text(`upstream refused: {"id":3,"secret":"${SECRET}"} with Bearer ${API_KEY}`, { status: 502 })));
    const error = (await failure(client.webhooks.create(params))) as APIError;
    expect((error as APIError).body).toBe('upstream refused: {"id":3,"secret":"[redacted]"} with [redacted]');
    expectNoSecret(error, API_KEY);
  });
});

describe('a refused rotateSecret keeps the service’s reason', () => {
  it('500 whose detail quotes the key and the new secret: the detail’s words stay, the values do not', async () => {
    server.use(http.post(ROTATE, () => HttpResponse.json({ detail: `rotation failed after issuing ${SECRET} for ${API_KEY}`, new_secret: 'n-1' }, { status: 500 })));
    const error = (await failure(client.webhooks.rotateSecret(3))) as APIError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as APIError).body).toEqual({ detail: 'rotation failed after issuing [redacted] for [redacted]', new_secret: '[redacted]' });
    expect(error.message).toBe('POST /api/v1/webhooks/3/rotate-secret/ failed with 500: rotation failed after issuing [redacted] for [redacted]');
    expectNoSecret(error, API_KEY, 'n-1');
  });

  it('409 with a structured error: its code and message stay', async () => {
    server.use(http.post(ROTATE, () => HttpResponse.json({ error: { code: 'rotation_in_progress', message: 'a rotation is in progress' } }, { status: 409 })));
    const error = (await failure(client.webhooks.rotateSecret(3))) as APIError;
    expect((error as APIError).body).toEqual({ error: { code: 'rotation_in_progress', message: 'a rotation is in progress' } });
    expect(error.message).toBe('POST /api/v1/webhooks/3/rotate-secret/ failed with 409: {"code":"rotation_in_progress","message":"a rotation is in progress"}');
  });
});

describe('a successful answer of an unexpected shape still hides every string', () => {
  it('webhooks.create answered 201 without a secret field: the secret may be under any name', async () => {
    server.use(http.post(CREATE, () => HttpResponse.json({ id: 4, signing: 'plain-secret-value', event_types: null, note: 'created' }, { status: 201 })));
    const error = (await failure(client.webhooks.create(params)));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).body).toEqual({ id: 4, signing: '[redacted]', event_types: null, note: '[redacted]' });
    expectNoSecret(error, 'plain-secret-value');
  });

  it('rotateSecret answered 200 with the secret under another name', async () => {
    server.use(http.post(ROTATE, () => HttpResponse.json({ success: true, data: { value: 'plain-rotated', message: 'rotated' } })));
    const error = (await failure(client.webhooks.rotateSecret(3)));
    expect((error as ResponseValidationError).body).toEqual({ value: '[redacted]', message: '[redacted]' });
    expectNoSecret(error, 'plain-rotated');
  });
});
