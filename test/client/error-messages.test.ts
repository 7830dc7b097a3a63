// What an error says and keeps: an operation that returns a secret keeps no string value of a
// successful answer of an unexpected shape (a refusal keeps its reason: test/redaction); a text error page is described, not quoted, and kept whole; a refused connection
// names the method, host:port and the system's code (test/client/faults.test.ts, at a real socket).
import { inspect } from 'node:util';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIError, Client, InternalServerError, ResponseValidationError } from '../../src/index.node.js';
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

  it('rotateSecret answered a 500 whose body echoes the secret under another name: the reason stays, the secret does not', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/webhooks/3/rotate-secret/`, () => HttpResponse.json({ error: 'failed', signing_key: SECRET }, { status: 500 })));
    const error = await failure(client.webhooks.rotateSecret(3));
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).body).toEqual({ error: 'failed', signing_key: '[redacted]' });
    expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
  });

  it('strings in arrays and deep inside are redacted too; deeper than 16 levels, a whole branch is', async () => {
    let deep: unknown = 7;
    let deepList: unknown = 7;
    for (let level = 0; level < 20; level++) {
      deep = { down: deep };
      deepList = [deepList];
    }
    // A successful answer of an unexpected shape: where a secret may sit under any name, so every string goes.
    server.use(http.post(`${BASE_URL}/api/v1/webhooks/3/rotate-secret/`, () => HttpResponse.json({ success: true, data: { keys: [SECRET, 'x', 3], deep, deepList } })));
    const body = ((await failure(client.webhooks.rotateSecret(3))) as ResponseValidationError).body as { keys: unknown[]; deep: unknown; deepList: unknown };
    expect(body.keys).toEqual(['[redacted]', '[redacted]', 3]);
    let list = body.deepList;
    for (let level = 1; level < 16; level++) list = (list as unknown[])[0];
    expect(list).toEqual(['[redacted]']);
    let branch = body.deep;
    for (let level = 1; level < 16; level++) branch = (branch as { down: unknown }).down;
    // body is level 0, body.deep level 1: level 17 is replaced whole.
    expect(branch).toEqual({ down: '[redacted]' });
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

  it('the content type is named without its parameters, and the length is of the bytes that came (latin1: one byte a letter)', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/rooms`, () => new HttpResponse(Buffer.from('café', 'latin1'), { status: 502, headers: { 'content-type': 'text/plain ; charset=iso-8859-1' } })));
    const error = await failure(client.request({ method: 'GET', path: '/rooms' }));
    expect((error as Error).message).toBe('GET /api/v1/rooms failed with 502: text/plain answer of 4 bytes (kept whole on error.body)');
    expect((error as InternalServerError).body).toBe('café');
  });

  it('an APIError made by hand from a text body counts its UTF-8 bytes', () => {
    const error = new APIError({ status: 503, body: 'café', headers: new Headers({ 'content-type': 'text/plain' }), method: 'GET', url: `${BASE_URL}/api/v1/rooms` });
    expect(error.message).toBe('GET /api/v1/rooms failed with 503: text/plain answer of 5 bytes (kept whole on error.body)');
  });

  it('an answer with no body, or a JSON one that is no object, is named by its status alone', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/rooms`, () => new HttpResponse(null, { status: 503 })));
    expect(((await failure(client.request({ method: 'GET', path: '/rooms' }))) as Error).message).toBe('GET /api/v1/rooms failed with 503');
    server.use(http.get(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json(42, { status: 500 })));
    expect(((await failure(client.request({ method: 'GET', path: '/rooms' }))) as Error).message).toBe('GET /api/v1/rooms failed with 500');
  });

  it('an answer with no content type says so', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/rooms`, () => new HttpResponse(new Uint8Array([0x6f, 0x6b]), { status: 503, headers: {} })));
    const error = await failure(client.request({ method: 'GET', path: '/rooms' }));
    expect((error as Error).message).toBe('GET /api/v1/rooms failed with 503: no content type answer of 2 bytes (kept whole on error.body)');
  });
});

describe('an APIConnectionError names where and why', () => {
  const url = 'https://svc.test/api/v1/rooms';
  const message = (target: string, cause?: unknown) => new APIConnectionError('GET', target, cause === undefined ? undefined : { cause }).message;

  it('the port is the scheme\'s default when the URL has none', () => {
    expect(message('http://svc.test/api/v1/rooms')).toBe('GET /api/v1/rooms failed: could not reach svc.test:80');
    expect(message(url)).toBe('GET /api/v1/rooms failed: could not reach svc.test:443');
    expect(message('https://svc.test:8443/api/v1/rooms')).toBe('GET /api/v1/rooms failed: could not reach svc.test:8443');
  });

  it('a URL that does not parse is "the service"', () => {
    expect(message('not a url')).toBe('GET not a url failed: could not reach the service');
  });

  it.each([
    ['a code on the cause', { code: 'ECONNRESET' }, ' (ECONNRESET)'],
    ['a code further down the chain', new TypeError('fetch failed', { cause: { code: 'EAI_AGAIN' } }), ' (EAI_AGAIN)'],
    ['a code that is not a system code, then one that is', { code: 'socket:ECONNRESET', cause: { code: 'EPIPE' } }, ' (EPIPE)'],
    ['a code with a suffix', { code: 'EPIPE-x' }, ''],
    ['a code that is not a string', { code: ['EPIPE'] }, ''],
    ['a chain that ends in null', { cause: null }, ''],
    ['no cause with a code', new Error('boom'), ''],
  ])('%s', (_name, cause, suffix) => {
    expect(message(url, cause)).toBe(`GET /api/v1/rooms failed: could not reach svc.test:443${suffix}`);
  });

  it('a code is looked for 8 causes deep at most', () => {
    const chain = (depth: number) => {
      let cause: Record<string, unknown> = { code: 'ECONNREFUSED' };
      for (let level = 0; level < depth; level++) cause = { cause };
      return cause;
    };
    expect(message(url, chain(7))).toBe('GET /api/v1/rooms failed: could not reach svc.test:443 (ECONNREFUSED)');
    expect(message(url, chain(8))).toBe('GET /api/v1/rooms failed: could not reach svc.test:443');
  });
});
