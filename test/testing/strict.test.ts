import { request as httpRequest } from 'node:http';
import { setupServer } from 'msw/node';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createEmulator } from '../../src/testing/index.js';
import { call, fileForm, KEY, ORIGIN, seed } from './support.js';

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('createEmulator(): as strict as the service', () => {
  it.each(['vdr_', 'vdr', 'Vdr_x'])('answers 401 JSON for "Authorization: Bearer %s"', async (key) => {
    const { status, body } = await call(createEmulator(), 'GET', '/webhooks/', { key });
    expect(status).toBe(401);
    expect(body).toEqual({ error: 'invalid API key' });
  });

  it('accepts a key with anything after vdr_, and rejects an apiKey option that is the bare prefix', async () => {
    expect((await call(createEmulator(), 'GET', '/webhooks/', { key: 'vdr_x' })).status).toBe(200);
    expect(() => createEmulator({ apiKey: 'vdr_' })).toThrow(/^\[svc-sdk\] createEmulator: apiKey must start with "vdr_"/);
  });

  it.each([
    ['POST', '/rooms', 'text/plain;charset=UTF-8'],
    ['POST', '/svc/crm/deals', 'application/x-www-form-urlencoded'],
    ['PATCH', '/webhooks/1/', 'text/plain'],
    ['POST', '/rooms/1/search', 'multipart/form-data; boundary=x'],
  ])('%s %s with a JSON body sent as %s answers 415 naming the fix', async (method, path, contentType) => {
    const emulator = createEmulator();
    await seed(emulator);
    await call(emulator, 'POST', '/webhooks/', { json: { url: 'https://r.test/h', name: 'n', event_types: null } });
    const { status, body } = await call(emulator, method, path, { body: JSON.stringify({ name: 'R', room_type: 'x', query: 'q' }), contentType });
    expect(status).toBe(415);
    expect(body.error).toBe(`unsupported Content-Type "${contentType}": send the body as JSON with Content-Type: application/json`);
  });

  it('takes application/json with a charset and +json types; a body-less POST without a content type is 422 body required', async () => {
    const emulator = createEmulator();
    for (const contentType of ['application/json; charset=utf-8', 'application/vnd.svc+json']) {
      const { status } = await call(emulator, 'POST', '/rooms', { body: '{"name":"R","room_type":"x"}', contentType });
      expect(status, contentType).toBe(201);
    }
    expect(await call(emulator, 'POST', '/rooms')).toEqual({ status: 422, body: { error: expect.stringMatching(/^body is required/), field: 'body' } });
  });

  it('answers 415 to an upload that is not multipart/form-data', async () => {
    const emulator = createEmulator();
    const { roomId } = await seed(emulator);
    const { status, body } = await call(emulator, 'POST', `/rooms/${roomId}/documents`, { body: 'raw bytes', contentType: 'application/octet-stream' });
    expect(status).toBe(415);
    expect(body.error).toMatch(/^unsupported Content-Type "application\/octet-stream": file is required: send multipart\/form-data/);
  });

  it.each(['1e0', '0x1', '+1', '1.0', ' 1', 'abc'])('treats the path id %j as unknown: 404 JSON, even where id 1 exists', async (id) => {
    const emulator = createEmulator();
    const { dealId, roomId } = await seed(emulator);
    await call(emulator, 'POST', '/webhooks/', { json: { url: 'https://r.test/h', name: 'n', event_types: null } });
    await call(emulator, 'POST', '/svc/transactions', { json: { name: 'T', deal_id: dealId } });
    expect((await call(emulator, 'GET', '/webhooks/1/')).status).toBe(200);
    const segment = encodeURIComponent(id);
    const answers = [
      await call(emulator, 'GET', `/webhooks/${segment}/`),
      await call(emulator, 'DELETE', `/webhooks/${segment}/`),
      await call(emulator, 'PATCH', `/svc/transactions/${segment}`, { json: { linked_room_id: roomId } }),
      await call(emulator, 'POST', `/rooms/${segment}/search`, { json: { query: 'x' } }),
      await call(emulator, 'POST', `/rooms/${segment}/documents`, { body: fileForm('x', 'a.txt') }),
    ];
    for (const { status, body } of answers) {
      expect(status).toBe(404);
      expect(body.error).toMatch(/not found: ids are whole numbers, such as 42$/);
    }
    expect((await call(emulator, 'GET', '/webhooks/1/')).status).toBe(200); // the DELETE did not reach webhook 1
    expect((await call(emulator, 'GET', `/svc/transactions?deal_id=${segment}`)).status).toBe(422);
  });

  it('answers 413 to a JSON body above maxJsonBytes, from Content-Length or while reading a streamed body', async () => {
    const emulator = createEmulator({ maxJsonBytes: 64 });
    const json = JSON.stringify({ name: 'x'.repeat(60), room_type: 'company_investment' });
    const declared = await call(emulator, 'POST', '/rooms', { body: json, contentType: 'application/json' });
    expect(declared.status).toBe(413);
    expect(declared.body.error).toBe('body too large: the emulator takes at most 64 bytes here (createEmulator({ maxJsonBytes }) raises it)');

    // No Content-Length: the emulator counts while reading and stops at the limit, without reading the rest.
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        controller.enqueue(new TextEncoder().encode(' '.repeat(40)));
        if (pulls === 1000) controller.close();
      },
    });
    const request = new Request(`${ORIGIN}/api/v1/rooms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const streamed = await emulator.fetch(request);
    expect(streamed.status).toBe(413);
    expect(pulls).toBeLessThan(10);

    const small = JSON.stringify({ name: 'R', room_type: 'x' });
    expect((await call(emulator, 'POST', '/rooms', { body: small, contentType: 'application/json' })).status).toBe(201);
  });

  it('answers 413 over HTTP as soon as the headers declare a body above the limit, without waiting for it', async () => {
    const emulator = createEmulator();
    const { port } = await emulator.listen(0);
    closers.push(() => emulator.close());
    // Headers only: a Content-Length of 10 MB for a JSON body, and not one byte of it sent.
    const answer = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v1/rooms',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': String(10_000_000) },
      });
      request.on('response', (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode, body });
          request.destroy();
        });
      });
      request.on('error', reject);
      request.flushHeaders();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toMatch(/^body too large: the emulator takes at most 1048576 bytes here/);
  });

  it('answers 413 to an upload above maxUploadBytes; the default takes a 2 MiB upload and a 1 MiB JSON body', async () => {
    const strict = createEmulator({ maxUploadBytes: 1000 });
    const { roomId } = await seed(strict);
    const big = await call(strict, 'POST', `/rooms/${roomId}/documents`, { body: fileForm('x'.repeat(2000), 'big.txt') });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatch(/createEmulator\(\{ maxUploadBytes \}\) raises it/);
    expect((await call(strict, 'POST', `/rooms/${roomId}/documents`, { body: fileForm('small', 'a.txt') })).status).toBe(201);

    const defaults = createEmulator();
    const ids = await seed(defaults);
    expect((await call(defaults, 'POST', `/rooms/${ids.roomId}/documents`, { body: fileForm('x'.repeat(2 * 1024 * 1024), 'b.txt') })).status).toBe(201);
    const nearMiB = JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 100), room_type: 'x' });
    expect((await call(defaults, 'POST', '/rooms', { body: nearMiB, contentType: 'application/json' })).status).toBe(201);
    const overMiB = JSON.stringify({ name: 'x'.repeat(1024 * 1024), room_type: 'x' });
    expect((await call(defaults, 'POST', '/rooms', { body: overMiB, contentType: 'application/json' })).status).toBe(413);
  });

  it.each([
    [{ maxJsonBytes: 0 }, /maxJsonBytes must be a whole number of bytes/],
    [{ maxUploadBytes: 1.5 }, /maxUploadBytes must be a whole number of bytes/],
    [{ pageSize: 0 }, /pageSize must be a whole number from 1 to 1000/],
  ])('createEmulator(%j) throws a clear TypeError', (options, message) => {
    expect(() => createEmulator(options)).toThrow(message);
  });

  it('answers an unknown /api/v1 operation with 404 JSON over HTTP, and a path outside it too', async () => {
    const emulator = createEmulator();
    const { url } = await emulator.listen(0);
    closers.push(() => emulator.close());
    for (const [method, path] of [['PUT', '/api/v1/webhooks/1/'], ['GET', '/api/v1/nope'], ['GET', '/'], ['POST', '/api/v2/rooms']] as const) {
      const response = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${KEY}` } });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect((await response.json()).error).toMatch(new RegExp(`${method} ${path.replace(/\//g, '\\/')}`));
    }
  });
});

describe('createEmulator(): a request it cannot answer', () => {
  it('gets a JSON 500 naming the failure, over HTTP, when a route throws', async () => {
    vi.resetModules();
    vi.doMock('minisearch', () => ({
      default: class {
        addAll() {
          throw new RangeError('index exploded');
        }
      },
    }));
    try {
      const { createEmulator: create } = await import('../../src/testing/index.js');
      const emulator = create();
      const { url } = await emulator.listen(0);
      closers.push(() => emulator.close());
      const { roomId } = await seed(emulator);
      const response = await fetch(`${url}/api/v1/rooms/${roomId}/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'risk' }),
      });
      expect(response.status).toBe(500);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ error: 'the emulator failed to answer: index exploded' });
      // The emulator still answers after it.
      expect((await call(emulator, 'GET', '/webhooks/')).status).toBe(200);

      // The same JSON through msw's setupServer, whose own answer to a throwing handler is another body.
      const server = setupServer(...emulator.handlers);
      server.listen({ onUnhandledFrame: 'error' });
      try {
        const viaMsw = await fetch(`https://svc.test/api/v1/rooms/${roomId}/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'risk' }),
        });
        expect(viaMsw.status).toBe(500);
        expect(await viaMsw.json()).toEqual({ error: 'the emulator failed to answer: index exploded' });
      } finally {
        server.close();
      }
    } finally {
      vi.doUnmock('minisearch');
      vi.resetModules();
    }
  });

  it('search without minisearch installed is a JSON 500 whose error is the install command; the rest works', async () => {
    vi.resetModules();
    // What Node's import throws for a package that is not installed (vitest wraps a throwing factory's
    // error, so the module throws it on first read instead). The real thing: test/testing/peers.test.ts.
    const notFound = Object.assign(new Error("Cannot find package 'minisearch' imported from /app/node_modules/svc-sdk/dist/testing.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    vi.doMock('minisearch', () => ({
      get default(): never {
        throw notFound;
      },
    }));
    try {
      const { createEmulator: create } = await import('../../src/testing/index.js');
      const emulator = create();
      const { roomId } = await seed(emulator);
      expect(await call(emulator, 'POST', `/rooms/${roomId}/search`, { json: { query: 'risk' } })).toEqual({
        status: 500,
        body: { error: "[svc-sdk] the emulator's search needs minisearch (an optional peer dependency, not installed): npm install -D minisearch" },
      });
      expect((await call(emulator, 'POST', '/rooms', { json: { name: 'R', room_type: 'x' } })).status).toBe(201);
    } finally {
      vi.doUnmock('minisearch');
      vi.resetModules();
    }
  });
});
