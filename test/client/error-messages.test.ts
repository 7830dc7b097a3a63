// What an error says and keeps: an operation that returns a secret keeps no string value of a
// failed answer; a text error page is described, not quoted, and kept whole; a refused connection
// names the method, host:port and the system's code (test/client/faults.test.ts, at a real socket).
import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client, InternalServerError, ResponseValidationError } from '../../src/index.node.js';
import { failure } from '../support/failure.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const SECRET = 'whsec_rotated_0123456789abcdef';

describe('operations that return a secret', () => {
  it('rotateSecret answered with the secret under another name (new_secret): no string value stays on the error', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/webhooks/3/rotate-secret/`, () => HttpResponse.json({ success: true, data: { id: 3, new_secret: SECRET, rotated: true } })));
    const error = await failure(client.webhooks.rotateSecret(3));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).body).toEqual({ id: 3, new_secret: '[redacted]', rotated: true });
    expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
  });

  it('rotateSecret answered a 500 whose body echoes the secret under another name: none of its strings on the error', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/webhooks/3/rotate-secret/`, () => HttpResponse.json({ error: 'failed', signing_key: SECRET }, { status: 500 })));
    const error = await failure(client.webhooks.rotateSecret(3));
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).body).toEqual({ error: '[redacted]', signing_key: '[redacted]' });
    expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
  });

  it('another operation keeps the strings of an unexpected answer (only `secret` is redacted)', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.json({ id: 'three', url: 'https://x.test', secret: SECRET })));
    const error = await failure(client.webhooks.retrieve(3));
    expect((error as ResponseValidationError).body).toEqual({ id: 'three', url: 'https://x.test', secret: '[redacted]' });
  });
});

describe('an error answer that is not JSON', () => {
  it('a 5 kB HTML page is described by its type and length in the message, and kept whole on body', async () => {
    const page = `<!doctype html><html><body>${'<p>Bad gateway</p>'.repeat(280)}</body></html>`;
    server.use(http.get(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.html(page, { status: 502 })));
    const error = await failure(client.request({ method: 'GET', path: '/rooms' }));
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as Error).message).toBe(`GET /api/v1/rooms failed with 502: text/html answer of ${Buffer.byteLength(page)} bytes (kept whole on error.body)`);
    expect((error as InternalServerError).body).toBe(page);
  });

  it('an answer with no content type says so', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/rooms`, () => new HttpResponse(new Uint8Array([0x6f, 0x6b]), { status: 503, headers: {} })));
    const error = await failure(client.request({ method: 'GET', path: '/rooms' }));
    expect((error as Error).message).toBe('GET /api/v1/rooms failed with 503: no content type answer of 2 bytes (kept whole on error.body)');
  });
});
