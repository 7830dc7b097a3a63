// Raw responses are raw: the body is read as bytes, JSON and text are decoded from them, and
// asResponse()/withResponse().response carry those very bytes with headers that describe them.
// maxResponseBytes bounds what is read. A real server sends binary, latin1, gzip and endless bodies.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Client, SvcError, ValidationError } from '../../src/index.node.js';
import { failure } from '../support/failure.js';
import { useLoopbackServer } from '../support/loopback.js';
import { API_KEY } from '../support/msw.js';

const service = useLoopbackServer();
const client = (options: { maxResponseBytes?: number; maxRetries?: number } = {}) =>
  new Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0, ...options });
const EVERY_BYTE = Uint8Array.from({ length: 256 }, (_, index) => index);

describe('raw responses', () => {
  it('asResponse() of a 256-byte PDF holds the same 256 bytes, and its Content-Length says 256', async () => {
    service.handle((_request, response) => response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': '256' }).end(EVERY_BYTE));
    const response = await client().request({ method: 'GET', path: '/documents/1/file' }).asResponse();
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(EVERY_BYTE);
    expect(response.headers.get('content-length')).toBe('256');
    expect(response.headers.get('content-type')).toBe('application/pdf');
  });

  it('withResponse().response holds the bytes too, and the data is the body as text', async () => {
    service.handle((_request, response) => response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(EVERY_BYTE));
    const { response } = await client().request({ method: 'GET', path: '/documents/1/file' }).withResponse();
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(EVERY_BYTE);
    expect(response.headers.get('content-length')).toBe('256');
  });

  it('a text body in iso-8859-1 is decoded as latin1, not as UTF-8', async () => {
    service.handle((_request, response) => response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from('café déjà', 'latin1')));
    await expect(client().request({ method: 'GET', path: '/notes' })).resolves.toBe('café déjà');
  });

  it.each([
    ['no space, spaces around =, quoted, upper case', 'text/plain;charset = "ISO-8859-1"', Buffer.from('café', 'latin1'), 'café'],
    ['a charset this runtime does not know: read as UTF-8', 'text/plain; charset=x-unknown-8', Buffer.from('café', 'utf8'), 'café'],
    ['JSON is UTF-8 whatever charset it claims (RFC 8259)', 'application/json; charset=iso-8859-1', Buffer.from('"café"', 'utf8'), 'café'],
  ])('text decoding: %s', async (_name, type, bytes, expected) => {
    service.handle((_request, response) => response.writeHead(200, { 'content-type': type }).end(bytes));
    await expect(client().request({ method: 'GET', path: '/notes' })).resolves.toBe(expected);
  });

  it.each([204, 205])('asResponse() of a %i has no body and no Content-Length', async (status) => {
    service.handle((_request, response) => response.writeHead(status, { 'x-request-id': 'req_204' }).end());
    const response = await client().request({ method: 'DELETE', path: '/rooms/1' }).asResponse();
    expect(response.status).toBe(status);
    expect(response.body).toBeNull();
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('x-request-id')).toBe('req_204');
  });

  it('a gzip answer is parsed, and its raw response has the decoded bytes without Content-Encoding', async () => {
    const json = JSON.stringify({ success: true, data: { id: 3, name: 'Acme ✓' } });
    const gzipped = gzipSync(json);
    service.handle((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(gzipped.byteLength) }).end(gzipped),
    );
    const call = client().request({ method: 'GET', path: '/rooms/3' });
    const { data, response } = await call.withResponse();
    expect(data).toEqual({ id: 3, name: 'Acme ✓' });
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(json)));
    expect(await response.text()).toBe(json);
  });
});

describe('maxResponseBytes', () => {
  const LIMIT = 1000;
  const message = (detail: string) =>
    `[svc-sdk] GET /api/v1/rooms: the answer is larger than maxResponseBytes (${LIMIT} bytes; ${detail}): ` +
    'raise maxResponseBytes for this call or the client, or ask for less (a filter, a smaller page)';

  it('an answer whose Content-Length passes it fails before it is read, as an SvcError naming the option, and is not retried', async () => {
    service.handle((_request, response) => response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1001' }).end(`[${' '.repeat(999)}]`));
    const error = await failure(client({ maxResponseBytes: LIMIT, maxRetries: 2 }).request({ method: 'GET', path: '/rooms' }));
    expect(error).toBeInstanceOf(SvcError);
    expect((error as Error).message).toBe(message('its Content-Length is 1001'));
    expect(service.requests).toHaveLength(1);
  });

  it('an answer of exactly maxResponseBytes is read', async () => {
    service.handle((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(`[${' '.repeat(LIMIT - 2)}]`));
    await expect(client({ maxResponseBytes: LIMIT }).request({ method: 'GET', path: '/rooms' })).resolves.toEqual([]);
  });

  it('an endless chunked answer fails while it is read, and the rest is never read (memory stays bounded)', async () => {
    let written = 0;
    let closed: () => void;
    const serverDone = new Promise<void>((resolve) => (closed = resolve));
    service.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = () => {
        // Bounded: 256 MiB at most, stopping as soon as the client goes away.
        while (written < 256 * 1024 * 1024 && !response.destroyed) {
          written += chunk.byteLength;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      response.on('close', () => closed());
      pump();
    });
    const limit = 64 * 1024;
    const error = await failure(client().request({ method: 'GET', path: '/rooms' }, { maxResponseBytes: limit }));
    expect((error as Error).message).toBe(
      `[svc-sdk] GET /api/v1/rooms: the answer is larger than maxResponseBytes (${limit} bytes; it passed ${limit} bytes while being read): ` +
        'raise maxResponseBytes for this call or the client, or ask for less (a filter, a smaller page)',
    );
    await serverDone;
    // Socket buffers hold a few MiB at most; the 256 MiB were never produced.
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  it('a gzip answer is bounded by its decoded size (a small body that inflates past the limit fails)', async () => {
    const gzipped = gzipSync(Buffer.from(`[${' '.repeat(100_000)}]`));
    service.handle((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(gzipped.byteLength) }).end(gzipped),
    );
    const error = await failure(client({ maxResponseBytes: LIMIT }).request({ method: 'GET', path: '/rooms' }));
    expect((error as Error).message).toBe(message(`it passed ${LIMIT} bytes while being read`));
  });

  it('a call option overrides the client option', async () => {
    service.handle((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(`[${' '.repeat(2000)}]`));
    await expect(client({ maxResponseBytes: LIMIT }).request({ method: 'GET', path: '/rooms' }, { maxResponseBytes: 4000 })).resolves.toEqual([]);
  });

  it.each([0, 1.5, -1, '1000'])('%j is a ValidationError, for the client and for a call', async (value) => {
    expect(() => client({ maxResponseBytes: value as number })).toThrow(ValidationError);
    const error = await failure(client().request({ method: 'GET', path: '/rooms' }, { maxResponseBytes: value as number }));
    expect((error as ValidationError).issues).toEqual([{ path: ['maxResponseBytes'], message: 'maxResponseBytes must be a whole number of bytes, 1 or more (default 67108864, 64 MiB)' }]);
    expect(service.requests).toHaveLength(0);
  });
});
