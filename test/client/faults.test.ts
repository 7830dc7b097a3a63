import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, Client, SvcError } from '../../src/index.node.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { failure } from '../support/failure.js';

const API_KEY = 'vdr_test_0123456789abcdef';
const service = useLoopbackServer();
const elsewhere = useLoopbackServer(); // another port: another origin
const roomParams = { name: 'VDR', room_type: 'company_investment' };
const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });

function client(options: ConstructorParameters<typeof Client>[0] = {}) {
  return new Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0, ...options });
}

describe('nothing hangs: the timeout covers the body', () => {
  it('headers then a trickling body: APITimeoutError after `timeout` ms', async () => {
    service.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"success":true,"data":[');
      const timer = setInterval(() => response.write(' '), 20); // a byte every 20 ms, never the end
      response.on('close', () => clearInterval(timer));
    });
    const started = performance.now();
    const error = await failure(client().transactions.list({ deal_id: 1 }, { timeout: 300 }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe('GET /api/v1/svc/transactions?deal_id=1 timed out after 300 ms: raise `timeout` or try again');
    // Bounded by the timeout, not by the trickle (which never ends): a guard against hanging, not a speed claim.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a GET whose body trickles is retried, and the next attempt succeeds', async () => {
    service.handle((_request, response, index) => {
      if (index === 0) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"success":true,');
        return; // never finished
      }
      sendJson(response, 200, { success: true, data: [{ id: 2 }] });
    });
    expect(await client({ maxRetries: 1 }).transactions.list({ deal_id: 1 }, { timeout: 300 })).toEqual([{ id: 2 }]);
    expect(service.requests).toHaveLength(2);
  });
});

describe('a connection reset in the middle of the body', () => {
  const resetMidBody = (_request: unknown, response: import('node:http').ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    response.write('{"success":true,"data":');
    setTimeout(() => response.socket?.destroy(), 10);
  };

  it('is an APIConnectionError, and a create is not sent again', async () => {
    service.handle(resetMidBody);
    const error = await failure(client({ maxRetries: 2 }).rooms.create(roomParams));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe('POST /api/v1/rooms failed: the connection closed while the answer was being read (UND_ERR_SOCKET): the service was reached');
    expect(service.requests).toHaveLength(1);
  });

  it('an idempotent call is retried', async () => {
    service.handle((request, response, index) => (index === 0 ? resetMidBody(request, response) : sendJson(response, 200, page([{ id: 3 }]))));
    expect(await client({ maxRetries: 2 }).transactions.list({ deal_id: 1 })).toEqual([{ id: 3 }]);
    expect(service.requests).toHaveLength(2);
  });

  it('an abort while the body is being read is an APIUserAbortError, not a DOMException nor a connection failure', async () => {
    const controller = new AbortController();
    service.handle((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"success":true,');
      setTimeout(() => controller.abort(), 30);
    });
    const error = await failure(client().rooms.create(roomParams, { signal: controller.signal }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe("[svc-sdk] POST /api/v1/rooms: cancelled by the caller's signal (AbortError: This operation was aborted)");
  });
});

describe('writes never follow redirects', () => {
  it.each([301, 302, 303, 307, 308])('a create answered %i is an APIError naming the status and Location, sent once', async (status) => {
    service.handle((_request, response) => {
      response.writeHead(status, { location: `${elsewhere.url}/api/v1/rooms` }).end();
    });
    elsewhere.handle((_request, response) => sendJson(response, 200, { success: true, data: { id: 666, name: 'not yours' } }));
    const error = await failure(client({ maxRetries: 2 }).rooms.create(roomParams));
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(status);
    expect((error as Error).message).toBe(
      `POST /api/v1/rooms failed with ${status}, a redirect to ${elsewhere.url}/api/v1/rooms: a write never follows a redirect, so it was not sent again: check baseUrl`,
    );
    expect(service.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a 307 loop sends a create once', async () => {
    service.handle((_request, response) => response.writeHead(307, { location: '/api/v1/rooms' }).end());
    await expect(client().rooms.create(roomParams)).rejects.toMatchObject({ status: 307 });
    expect(service.requests).toHaveLength(1);
  });

  it('an upload answered 307 is sent once, and the error says it was a redirect', async () => {
    service.handle((_request, response) => response.writeHead(307, { location: `${elsewhere.url}/api/v1/rooms/5/documents` }).end());
    const error = await failure(client({ maxRetries: 2 }).documents.upload(5, new Uint8Array([1, 2, 3]), { filename: 'a.bin' }));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe(
      'POST /api/v1/rooms/5/documents failed: the service answered a redirect, which an upload never follows: check baseUrl',
    );
    expect(service.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a PATCH is not followed either', async () => {
    service.handle((_request, response) => response.writeHead(308, { location: '/api/v1/svc/transactions/10' }).end());
    await expect(client().transactions.update(9, { linked_room_id: 5 })).rejects.toMatchObject({ status: 308 });
    expect(service.requests).toHaveLength(1);
  });
});

describe('a GET follows redirects, and the headers stay home', () => {
  it('a same-origin redirect keeps the key and the custom headers', async () => {
    service.handle((request, response) => {
      if (request.url.startsWith('/api/v1/webhooks/3/')) response.writeHead(301, { location: '/api/v1/webhooks/4/' }).end();
      else sendJson(response, 200, { id: 4 });
    });
    const endpoint = await client({ headers: { 'x-team': 'deals' } }).webhooks.retrieve(3, { headers: { 'x-trace': 't1' } });
    expect(endpoint).toEqual({ id: 4 });
    const followed = service.requests[1]!;
    expect(followed.url).toBe('/api/v1/webhooks/4/');
    expect(followed.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(followed.headers['x-team']).toBe('deals');
    expect(followed.headers['x-trace']).toBe('t1');
  });

  it('a redirect to another origin carries neither the API key nor client or per-call headers', async () => {
    service.handle((_request, response) => response.writeHead(302, { location: `${elsewhere.url}/moved/3` }).end());
    elsewhere.handle((_request, response) => sendJson(response, 200, { id: 3 }));
    const endpoint = await client({ headers: { 'x-team': 'deals' } }).webhooks.retrieve(3, { headers: { 'x-trace': 't1' } });
    expect(endpoint).toEqual({ id: 3 });
    expect(elsewhere.requests).toHaveLength(1);
    const { headers } = elsewhere.requests[0]!;
    expect(headers.authorization).toBeUndefined();
    expect(headers['x-team']).toBeUndefined();
    expect(headers['x-trace']).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain(API_KEY);
  });

  it('a redirect loop stops after 5 hops with an APIError', async () => {
    service.handle((_request, response) => response.writeHead(302, { location: '/api/v1/webhooks/3/' }).end());
    const error = await failure(client({ maxRetries: 2 }).webhooks.retrieve(3));
    expect(error).toBeInstanceOf(APIError);
    expect((error as Error).message).toContain('more than 5 redirects');
    expect(service.requests).toHaveLength(6);
  });
});

describe('the User-Agent and SDK version headers', () => {
  it('every request names the SDK and its version', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default;
    service.handle((_request, response) => sendJson(response, 200, { success: true, data: { id: 1, name: 'r' } }));
    await client().rooms.create(roomParams);
    expect(service.requests[0]!.headers['user-agent']).toBe(`svc-sdk/${version}`);
    expect(service.requests[0]!.headers['x-svc-sdk-version']).toBe(version);
  });
});

describe('lists against a real server', () => {
  it('follows absolute and relative next links with the key on every page', async () => {
    service.handle((request, response) => {
      const url = new URL(request.url, service.url);
      const number = Number(url.searchParams.get('page') ?? '1');
      const next = number === 1 ? `${service.url}/api/v1/svc/transactions?deal_id=1&page=2` : number === 2 ? '?deal_id=1&page=3' : null;
      sendJson(response, 200, { count: 3, next, previous: null, results: [{ id: number }] });
    });
    expect(await client().transactions.list({ deal_id: 1 })).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(service.requests.map((request) => request.url)).toEqual([
      '/api/v1/svc/transactions?deal_id=1',
      '/api/v1/svc/transactions?deal_id=1&page=2',
      '/api/v1/svc/transactions?deal_id=1&page=3',
    ]);
    for (const request of service.requests) expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('a next link to another origin, outside /api/v1/, is refused before anything is sent there', async () => {
    service.handle((_request, response) => sendJson(response, 200, { next: `${elsewhere.url}/svc/transactions?page=2`, results: [{ id: 1 }] }));
    const error = await failure(client().transactions.list({ deal_id: 1 }));
    expect(error).toBeInstanceOf(SvcError);
    expect((error as Error).message).toContain(`the next page must be on ${service.url}`);
    expect(elsewhere.requests).toHaveLength(0);
  });
});

describe('a refused connection', () => {
  it('is an APIConnectionError naming the method, path, host:port and ECONNREFUSED', async () => {
    // A port that was just listening and is now closed: the connection is refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const error = await failure(client({ baseUrl: `http://127.0.0.1:${port}` }).rooms.create(roomParams));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe(`POST /api/v1/rooms failed: could not reach 127.0.0.1:${port} (ECONNREFUSED)`);
  });
});
