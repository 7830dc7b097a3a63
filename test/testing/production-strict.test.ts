// The emulator as strict as production, over its real HTTP server (emulator.listen): only
// /api/v1/... at the root, only the loopback's Host names (unless allowedHosts), receiver URLs by the
// client's rule, 405 for unknown methods, an x-request-id on every answer, and deliveries whose JSON
// text is not what JSON.stringify writes.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { verifySignature } from '../../src/webhooks/index.node.js';
import { KEY } from './support.js';

const REQUEST_ID = /^req_[0-9a-f]{32}$/;

/** One raw request (any method, any Host) to the emulator's server. */
function raw(port: number, method: string, path: string, { host = `127.0.0.1:${port}`, body }: { host?: string; body?: unknown } = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: { error?: string; field?: string } & Record<string, unknown> }>((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          host,
          authorization: `Bearer ${KEY}`,
          ...(text !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
        },
      },
      (response) => {
        let data = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (data += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: data ? JSON.parse(data) : {} }));
      },
    );
    request.on('error', reject);
    request.end(text);
  });
}

describe('the emulator over HTTP, as strict as production', () => {
  let emulator: Emulator;
  let port: number;
  beforeAll(async () => {
    emulator = createEmulator({ deliveryDelayMs: 0, allowedHosts: ['host.docker.internal'] });
    ({ port } = await emulator.listen(0));
  });
  afterAll(() => emulator.close());

  it('answers /api/v1/... at the root only: /api/v1/api/v1/rooms and /foo/api/v1/rooms are 404 (a baseUrl ending in /api/v1 fails here as in production)', async () => {
    const room = { name: 'R', room_type: 'company_investment' };
    expect((await raw(port, 'POST', '/api/v1/rooms', { body: room })).status).toBe(201);
    for (const path of ['/api/v1/api/v1/rooms', '/foo/api/v1/rooms']) {
      const answer = await raw(port, 'POST', path, { body: room });
      expect(answer.status, path).toBe(404);
      expect(answer.body.error).toMatch(new RegExp(`^no (route for|operation) POST ${path.replaceAll('/', '\\/')}`));
    }
  });

  it.each(['evil.example', `evil.example:${0}`, '192.168.1.10', '[::1]'])('answers a request with Host %s 421, naming allowedHosts', async (host) => {
    const answer = await raw(port, 'GET', '/api/v1/webhooks/', { host });
    expect(answer.status).toBe(421);
    expect(answer.body.error).toBe(
      `Host ${JSON.stringify(host)} is not this emulator's: call it as 127.0.0.1 or localhost, or list the name in createEmulator({ allowedHosts })`,
    );
  });

  it('answers the loopback names it listens on, and the names in allowedHosts', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `host.docker.internal:${port}`]) {
      expect((await raw(port, 'GET', '/api/v1/webhooks/', { host })).status, host).toBe(200);
    }
  });

  it.each([
    ['http://example.com/hook', 422],
    ['http://10.0.0.5/hook', 422],
    ['ftp://example.com/hook', 422],
    ['https://example.com/hook', 201],
    ['http://127.0.0.1:9/hook', 201],
    ['http://localhost:9/hook', 201],
  ])('registers a webhook url %s: %i (https, or http to loopback only)', async (url, status) => {
    const answer = await raw(port, 'POST', '/api/v1/webhooks/', { body: { url, name: 'n', event_types: null } });
    expect(answer.status).toBe(status);
    if (status === 422) {
      expect(answer.body).toEqual({
        error: 'url must be an https:// URL of your receiver, such as https://example.com/webhooks (http:// only to localhost, 127.0.0.1 or [::1])',
        field: 'url',
      });
    }
  });

  // Methods node:http's parser knows (it answers 400 to others before any listener runs).
  it.each(['TRACE', 'PROPFIND', 'MKCOL'])('answers %s 405 with Allow, without listing anything', async (method) => {
    const answer = await raw(port, method, '/api/v1/webhooks/');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, POST, PATCH, DELETE');
    expect(answer.body).toEqual({ error: `method ${method} is not allowed: the service answers GET, POST, PATCH and DELETE` });
  });

  it('sends an x-request-id on every answer: success, 401, 404, 405, 421 and 422', async () => {
    const answers = await Promise.all([
      raw(port, 'GET', '/api/v1/webhooks/'),
      raw(port, 'GET', '/api/v1/nope'),
      raw(port, 'GET', '/nope'),
      raw(port, 'TRACE', '/api/v1/rooms'),
      raw(port, 'GET', '/api/v1/webhooks/', { host: 'evil.example' }),
      raw(port, 'POST', '/api/v1/rooms', { body: {} }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 404, 404, 405, 421, 422]);
    for (const answer of answers) expect(answer.headers['x-request-id']).toMatch(REQUEST_ID);
    expect(new Set(answers.map((a) => a.headers['x-request-id'])).size).toBe(answers.length);
    const unauthenticated = await fetch(`http://127.0.0.1:${port}/api/v1/webhooks/`);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });

  it('delivers JSON as many servers write it (spaces after separators, non-ASCII escaped): a receiver that re-serializes the parsed body fails to verify', async () => {
    const received: Array<{ body: string; signature: string }> = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push({ body, signature: String(req.headers['x-svc-signature']) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const { body: created } = await raw(port, 'POST', '/api/v1/webhooks/', { body: { url, name: 'raw', event_types: ['credit.granted'] } });
      await emulator.trigger('credit.granted', { amount: 500, new_balance: 590, note: 'Top-up — 500 € ✓' });
      const attempt = await emulator.waitForDelivery((attempt) => attempt.webhookId === created.id);
      expect(attempt).toMatchObject({ ok: true, status: 200 });
      const [{ body, signature }] = received as [{ body: string; signature: string }];
      const parsed = JSON.parse(body) as { delivery_id: string; timestamp: string };
      expect(body).toBe(
        `{"event": "credit.granted", "version": "1.0", "delivery_id": "${parsed.delivery_id}", "timestamp": "${parsed.timestamp}", ` +
          '"data": {"amount": 500, "new_balance": 590, "note": "Top-up \\u2014 500 \\u20ac \\u2713"}}',
      );
      expect(JSON.stringify(parsed)).not.toBe(body);
      const secret = created.secret as string;
      expect(await verifySignature(body, signature, secret)).toBe(true);
      expect(await verifySignature(JSON.stringify(parsed), signature, secret)).toBe(false);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('refuses allowedHosts that are not host names', () => {
    for (const allowedHosts of [['a:80'], ['a b'], [''], 'localhost']) {
      expect(() => createEmulator({ allowedHosts: allowedHosts as never })).toThrow(
        "[svc-sdk] createEmulator: allowedHosts must be an array of host names without a port, e.g. ['host.docker.internal']",
      );
    }
  });
});
