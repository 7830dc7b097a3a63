import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BadRequestError, Client } from '../../src/index.node.js';

// Which answers the core treats as redirects (a 3xx, and nothing else): edges that mutation testing
// found unguarded. A real server on 127.0.0.1: fetch's own redirect handling is part of what is tested.

const API_KEY = 'vdr_test_0123456789abcdef';

/** Runs `body` against a real HTTP server on 127.0.0.1 (fetch's redirect handling is what is tested); resolves with the paths it saw. */
async function withServer(listener: RequestListener, body: (baseUrl: string) => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const httpServer = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    request.on('end', () => listener(request, response));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  try {
    await body(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`);
  } finally {
    httpServer.closeAllConnections();
    await new Promise((resolve) => httpServer.close(resolve));
  }
  return seen;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

describe('only a 3xx answer is a redirect', () => {
  it('a 201 with a Location header (the created resource) is the answer, not a redirect', async () => {
    const seen = await withServer(
      (_request, response) => {
        const answer = json(201, { success: true, data: { id: 1, name: 'VDR' } }, { location: '/api/v1/rooms/1' });
        response.writeHead(answer.status, answer.headers).end(answer.body);
      },
      async (baseUrl) => {
        const room = await new Client({ apiKey: API_KEY, baseUrl, maxRetries: 0 }).rooms.create({ name: 'VDR', room_type: 'company_investment' });
        expect(room).toMatchObject({ id: 1, name: 'VDR' });
      },
    );
    expect(seen).toEqual(['POST /api/v1/rooms']);
  });

  it('a GET answered 300 with a Location is followed', async () => {
    const seen = await withServer(
      (request, response) => {
        if (request.url!.startsWith('/api/v1/svc/transactions?')) return void response.writeHead(300, { location: '/api/v1/moved' }).end();
        const answer = json(200, { success: true, data: [{ id: 4 }] });
        response.writeHead(answer.status, answer.headers).end(answer.body);
      },
      async (baseUrl) => {
        expect(await new Client({ apiKey: API_KEY, baseUrl, maxRetries: 0 }).transactions.list({ deal_id: 1 })).toEqual([{ id: 4 }]);
      },
    );
    expect(seen).toEqual(['GET /api/v1/svc/transactions?deal_id=1', 'GET /api/v1/moved']);
  });

  it('a GET answered 400 with a Location header is a BadRequestError, and the Location is not followed', async () => {
    let error: unknown;
    const seen = await withServer(
      (_request, response) => {
        const answer = json(400, { error: 'deal_id is unknown' }, { location: '/api/v1/elsewhere' });
        response.writeHead(answer.status, answer.headers).end(answer.body);
      },
      async (baseUrl) => {
        error = await new Client({ apiKey: API_KEY, baseUrl, maxRetries: 0 }).transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
      },
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(seen).toEqual(['GET /api/v1/svc/transactions?deal_id=1']);
  });

  // The same rule after a hop: the answer a redirect led to is a redirect only when it is a 3xx.
  it.each([
    [200, 'the answer'],
    [400, 'a BadRequestError'],
  ])('a redirect that leads to a %s with a Location header: that answer is %s, and its Location is not followed', async (status) => {
    let outcome: unknown;
    const seen = await withServer(
      (request, response) => {
        if (request.url!.startsWith('/api/v1/svc/transactions?')) return void response.writeHead(302, { location: '/api/v1/moved' }).end();
        const answer = status === 200 ? json(200, { success: true, data: [{ id: 4 }] }, { location: '/api/v1/again' }) : json(400, { error: 'no' }, { location: '/api/v1/again' });
        response.writeHead(answer.status, answer.headers).end(answer.body);
      },
      async (baseUrl) => {
        outcome = await new Client({ apiKey: API_KEY, baseUrl, maxRetries: 0 }).transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
      },
    );
    if (status === 200) expect(outcome).toEqual([{ id: 4 }]);
    else expect(outcome).toBeInstanceOf(BadRequestError);
    expect(seen).toEqual(['GET /api/v1/svc/transactions?deal_id=1', 'GET /api/v1/moved']);
  });
});
