// `svc-sdk listen`'s relay, run in process against a service whose webhook secret the test knows (so it
// signs deliveries itself) and an app that records what it got: the request forwarded, the attempt count
// per delivery id, the line printed for each answer, and the registration's name, deleted at the end.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { start } from './support.js';

const SECRET = 'whsec_known_to_the_test';
const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(handler: (request: IncomingMessage, body: string, response: ServerResponse) => void) {
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    handler(request, body, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A service that registers any webhook as id 7 with SECRET, and deletes it with `deleteStatus`. */
async function service(deleteStatus = 204) {
  const calls: Array<{ method: string; path: string; body: string }> = [];
  const url = await serve((request, body, response) => {
    calls.push({ method: request.method!, path: request.url!, body });
    if (request.method === 'POST') {
      const { url: target, name, event_types } = JSON.parse(body) as Record<string, unknown>;
      response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 7, secret: SECRET, url: target, name, event_types }));
    } else if (deleteStatus === 204) response.writeHead(204).end();
    else response.writeHead(deleteStatus, { 'content-type': 'application/json' }).end('{"error":"cannot now"}');
  });
  return { url, calls };
}

const delivery = (id: string, event = 'ping.test') => JSON.stringify({ event, version: '1.0', delivery_id: id, timestamp: new Date().toISOString(), data: {} });

describe('svc-sdk listen relays', () => {
  it('forwards each delivery re-signed with its user agent, numbers the attempts of a delivery id, and relays the app\'s status', async () => {
    const got: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const app = await serve((request, body, response) => {
      got.push({ headers: request.headers, body });
      if (got.length === 1) response.writeHead(503, { 'content-type': 'text/plain' }).end('  busy,\n\n try   later  ');
      else response.writeHead(200).end('fine but not printed');
    });
    const svc = await service();
    const listen = start(['listen', '--forward-to', `${app}/hook`], { SVC_BASE_URL: svc.url, SVC_API_KEY: 'vdr_x', SVC_WEBHOOK_SECRET: 'whsec_app' });
    try {
      const [, listener] = await listen.waitFor(/ to (http:\/\/127\.0\.0\.1:\d+\/)$/m);
      expect(JSON.parse(svc.calls[0]!.body)).toEqual({ url: listener, name: `svc-sdk listen → ${new URL(app).host}`, event_types: null });
      const body = delivery('d-1');
      const first = await fetch(listener!, { method: 'POST', headers: { 'x-svc-signature': sign(body) }, body });
      expect(first.status).toBe(503);
      const second = await fetch(listener!, { method: 'POST', headers: { 'x-svc-signature': sign(body) }, body });
      expect(second.status).toBe(200);
      const other = delivery('d-2', 'job.failed');
      expect((await fetch(listener!, { method: 'POST', headers: { 'x-svc-signature': sign(other) }, body: other })).status).toBe(200);
      expect(got[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'svc-sdk-listen', 'x-svc-signature': sign(body, 'whsec_app') });
      expect(got[0]!.headers.authorization).toBeUndefined();
      expect(got[0]!.body).toBe(body);
      expect(listen.stdout().split('\n').filter((line) => / attempt \d/.test(line))).toEqual([
        'ping.test d-1 attempt 1 → 503 Service Unavailable: busy, try later',
        'ping.test d-1 attempt 2 → 200 OK',
        'job.failed d-2 attempt 1 → 200 OK',
      ]);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
    expect(svc.calls.map((call) => `${call.method} ${call.path}`)).toEqual(['POST /api/v1/webhooks/', 'DELETE /api/v1/webhooks/7/']);
    expect(listen.stdout()).toMatch(/\nSIGTERM: deleted webhook 7, stopped\n$/);
  });

  it('prints at most 200 bytes of a failing app\'s answer, and does not follow its redirect', async () => {
    let redirected = 0;
    const elsewhere = await serve((_, __, response) => {
      redirected += 1;
      response.writeHead(200).end();
    });
    let calls = 0;
    const app = await serve((_, __, response) => {
      calls += 1;
      if (calls === 1) response.writeHead(500).end(`${'a'.repeat(190)} ${'b'.repeat(100)}`);
      else response.writeHead(302, { location: `${elsewhere}/` }).end();
    });
    const svc = await service();
    const listen = start(['listen', '--forward-to', `${app}/hook`], { SVC_BASE_URL: svc.url, SVC_API_KEY: 'vdr_x' });
    try {
      const [, listener] = await listen.waitFor(/ to (http:\/\/127\.0\.0\.1:\d+\/)$/m);
      const body = delivery('d-9');
      expect((await fetch(listener!, { method: 'POST', headers: { 'x-svc-signature': sign(body) }, body })).status).toBe(500);
      const again = await fetch(listener!, { method: 'POST', headers: { 'x-svc-signature': sign(body) }, body, redirect: 'manual' });
      expect(again.status).toBe(302);
      expect(redirected).toBe(0);
      const lines = listen.stdout().split('\n').filter((line) => / attempt \d/.test(line));
      expect(lines).toEqual([`ping.test d-9 attempt 1 → 500 Internal Server Error: ${'a'.repeat(190)} ${'b'.repeat(9)}`, 'ping.test d-9 attempt 2 → 302 Found']);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });

  it('refuses what it cannot verify without forwarding it, naming the reason, and answers a bad body 400', async () => {
    let forwarded = 0;
    const app = await serve((_, __, response) => {
      forwarded += 1;
      response.writeHead(200).end();
    });
    const svc = await service();
    const listen = start(['listen', '--forward-to', `${app}/hook`], { SVC_BASE_URL: svc.url, SVC_API_KEY: 'vdr_x' });
    try {
      const [, listener] = await listen.waitFor(/ to (http:\/\/127\.0\.0\.1:\d+\/)$/m);
      const wrong = await fetch(listener!, { method: 'POST', headers: { 'x-svc-signature': sign('{}', 'whsec_other') }, body: '{}' });
      expect([wrong.status, wrong.headers.get('content-type'), await wrong.json()]).toEqual([401, 'application/json', { error: 'invalid_signature' }]);
      const notJson = await fetch(listener!, { method: 'POST', headers: { 'x-svc-signature': sign('nope') }, body: 'nope' });
      expect(notJson.status).toBe(400);
      expect(forwarded).toBe(0);
      expect(listen.stdout()).toContain('refused a delivery: invalid_signature → 401\n');
      expect(listen.stdout()).toMatch(/refused a delivery: \w+ → 400\n/);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });

  it('exits 1 naming the fix when the webhook cannot be deleted at the end', async () => {
    const svc = await service(500);
    const listen = start(['listen', '--forward-to', 'http://127.0.0.1:9/hook'], { SVC_BASE_URL: svc.url, SVC_API_KEY: 'vdr_x' });
    await listen.waitFor(/^Press Ctrl\+C/m);
    expect(await listen.stop('SIGINT')).toBe(1);
    expect(listen.stderr()).toMatch(/^\[svc-sdk\] could not delete webhook 7: .*500.*\. Delete it with client\.webhooks\.delete\(7\)\n$/);
    expect(listen.stdout()).not.toContain('deleted webhook');
  });
});
