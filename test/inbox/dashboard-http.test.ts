// The inbox dashboard's answers as an integrator's client sees them on the wire, in each framework
// (no browser: plain HTTP against a real redis-server): the exact 401 (status, body, WWW-Authenticate,
// content-type) for a missing, bare or wrong credential, the 403's JSON and its content-type, and the
// basePath as given (a trailing slash, several, none, the root, the default) normalised to the one
// the page's <base href> and the replay routes are worked out from.
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { describe, expect, test } from 'vitest';
import { bullmqInbox, createInboxDashboard, serveInboxDashboard, type BullmqInbox } from '../../src/inbox/index.js';
import { onRedisInbox } from './on-redis.js';
import { hasRedis, reportMissingRedis } from './redis.js';

reportMissingRedis();

const CREDENTIAL = 'dashboard-http-secret-0123456789';
const TOKEN = `Bearer ${CREDENTIAL}`;
const SIGN_IN = 'sign in: the dashboard credential is the password (any user name)';
const CHALLENGE = 'Basic realm="svc-sdk inbox", charset="UTF-8"';

/** What a client gets back: status, the headers that matter here, and the body. */
interface Answer {
  status: number;
  contentType: string | null;
  challenge: string | null;
  body: string;
}

/** One request to a mounted dashboard, whatever the framework. */
type Ask = (path: string, options?: { method?: string; authorization?: string }) => Promise<Answer>;

/** A dashboard mounted at `mount` in an app of `framework`, with the basePath given as `basePath`. */
interface Mounted {
  ask: Ask;
  close(): Promise<void>;
}

const fromResponse = async (response: Response): Promise<Answer> => ({
  status: response.status,
  contentType: response.headers.get('content-type'),
  challenge: response.headers.get('www-authenticate'),
  body: await response.text(),
});

async function mount(inbox: BullmqInbox, framework: 'express' | 'hono' | 'fastify', mountAt: string, basePath: string | undefined, allowReplay = false): Promise<Mounted> {
  const options = { credential: CREDENTIAL, allowReplay, ...(basePath === undefined ? {} : { basePath }) };
  const headersOf = (authorization?: string): Record<string, string> => (authorization === undefined ? {} : { authorization });
  if (framework === 'express') {
    const express = (await import('express')).default;
    const app = express();
    app.use(mountAt, await createInboxDashboard(inbox, { ...options, framework: 'express' }));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      ask: async (path, { method = 'GET', authorization } = {}) => fromResponse(await fetch(`${origin}${path}`, { method, headers: headersOf(authorization) })),
      close: async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }
  if (framework === 'hono') {
    const { Hono } = await import('hono');
    const app = new Hono();
    app.route(mountAt, (await createInboxDashboard(inbox, { ...options, framework: 'hono' })) as unknown as InstanceType<typeof Hono>);
    return {
      ask: async (path, { method = 'GET', authorization } = {}) => fromResponse(await app.request(path, { method, headers: headersOf(authorization) })),
      close: async () => {},
    };
  }
  const fastify = (await import('fastify')).default();
  await fastify.register(await createInboxDashboard(inbox, { ...options, framework: 'fastify' }), mountAt === '/' ? {} : { prefix: mountAt });
  return {
    ask: async (path, { method = 'GET', authorization } = {}) => {
      const reply = await fastify.inject({ method: method as 'GET', url: path, headers: headersOf(authorization) });
      const header = (name: string) => (reply.headers[name] === undefined ? null : String(reply.headers[name]));
      return { status: reply.statusCode, contentType: header('content-type'), challenge: header('www-authenticate'), body: reply.body };
    },
    close: () => fastify.close(),
  };
}

/** The <base href> of the dashboard's page: where the browser loads its scripts and API calls from. */
const baseHrefOf = (html: string) => /<base href="([^"]*)"/.exec(html)?.[1];

describe.skipIf(!hasRedis)('the inbox dashboard on the wire: its refusals and its base path, in every framework', () => {
  const wire = onRedisInbox('wire', 'w1');

  for (const framework of ['express', 'hono', 'fastify'] as const) {
    test(`${framework}: no, a bare or a wrong credential gets the same 401 (plain text, a Basic challenge); a change gets a JSON 403`, async () => {
      const dashboard = await mount(wire.inbox, framework, '/ops/inbox', '/ops/inbox');
      try {
        const unauthorized = { status: 401, contentType: 'text/plain; charset=utf-8', challenge: CHALLENGE, body: SIGN_IN };
        for (const authorization of [undefined, '', 'Bearer', 'Basic', 'Bearer ', `Basic ${Buffer.from(`ops:${CREDENTIAL}x`).toString('base64')}`]) {
          expect(await dashboard.ask('/ops/inbox/api/queues', { authorization }), `authorization ${JSON.stringify(authorization)}`).toEqual(unauthorized);
        }
        // Signed in, read-only: any change is a 403 in JSON, with no challenge (signing in again would not help).
        const refused = await dashboard.ask('/ops/inbox/api/queues/wire/retry/failed', { method: 'PUT', authorization: TOKEN });
        expect({ ...refused, body: JSON.parse(refused.body) as unknown }).toEqual({
          status: 403,
          contentType: 'application/json; charset=utf-8',
          challenge: null,
          body: { error: 'read-only: replay is enabled with createInboxDashboard({ allowReplay: true }) or svc-sdk inbox ui --allow-replay' },
        });
        const listed = await dashboard.ask('/ops/inbox/api/queues', { authorization: TOKEN });
        expect([listed.status, listed.contentType]).toEqual([200, expect.stringMatching(/^application\/json/)]);
      } finally {
        await dashboard.close();
      }
    });

    test(`${framework}: a basePath with a trailing slash (or several) is the same dashboard: its page's <base href>, and replay still passes`, async () => {
      for (const basePath of ['/ops/inbox/', '/ops/inbox///']) {
        const dashboard = await mount(wire.inbox, framework, '/ops/inbox', basePath, true);
        try {
          const page = await dashboard.ask(framework === 'hono' ? '/ops/inbox' : '/ops/inbox/', { authorization: TOKEN });
          expect([page.status, baseHrefOf(page.body)], `basePath ${basePath}`).toEqual([200, '/ops/inbox/']);
          // The guard reads the path within the dashboard from the same base path: the retry route is recognised.
          const replay = await dashboard.ask('/ops/inbox/api/queues/wire/retry/failed', { method: 'PUT', authorization: TOKEN });
          expect(replay.status, `basePath ${basePath}`).toBe(200);
          const cleaned = await dashboard.ask('/ops/inbox/api/queues/wire/clean/failed', { method: 'PUT', authorization: TOKEN });
          expect([cleaned.status, cleaned.body], `basePath ${basePath}`).toEqual([403, JSON.stringify({ error: 'this dashboard replays dead letters only' })]);
        } finally {
          await dashboard.close();
        }
      }
      expect(await wire.inbox.stats()).toMatchObject({ waiting: 1 });
    });
  }

  test('mounted at the root, with basePath / or none: the page is based at /', async () => {
    for (const framework of ['express', 'hono', 'fastify'] as const) {
      for (const basePath of ['/', undefined]) {
        const dashboard = await mount(wire.inbox, framework, '/', basePath, true);
        try {
          const page = await dashboard.ask('/', { authorization: TOKEN });
          expect([page.status, baseHrefOf(page.body)], `${framework}, basePath ${String(basePath)}`).toEqual([200, '/']);
          expect((await dashboard.ask('/api/queues/wire/retry/failed', { method: 'PUT', authorization: TOKEN })).status, `${framework}, basePath ${String(basePath)}`).toBe(200);
        } finally {
          await dashboard.close();
        }
      }
    }
  });

  test('options left out (a JavaScript caller): refused with what is missing, not a TypeError of its own', async () => {
    await expect(createInboxDashboard(wire.inbox, undefined as never)).rejects.toThrow(/^\[svc-sdk\] createInboxDashboard: credential must be a secret of at least 16 characters/);
  });

  test('an entry whose stored body is not a delivery (edited by hand) is listed with its body as stored', async () => {
    const raw = bullmqInbox({ connection: { host: '127.0.0.1', port: wire.redis.port }, queue: 'wire-raw', warn: () => {}, acceptNoPersistence: true });
    const queue = new Queue('wire-raw', { connection: { host: '127.0.0.1', port: wire.redis.port } });
    try {
      await queue.add('document.uploaded', { body: 'not a delivery {', receivedAt: Date.UTC(2026, 0, 2) }, { jobId: 'd_hand_1' });
      const dashboard = await mount(raw, 'hono', '/ops', '/ops');
      const listed = JSON.parse((await dashboard.ask('/ops/api/queues?activeQueue=wire-raw&status=waiting&page=1', { authorization: TOKEN })).body) as { queues: Array<{ name: string; jobs: Array<{ name: string; data: unknown }> }> };
      const [job] = listed.queues.find((one) => one.name === 'wire-raw')?.jobs ?? [];
      expect(job).toMatchObject({ name: 'document.uploaded · delivery_id hand_1', data: { delivery: 'not a delivery {', receivedAt: '2026-01-02T00:00:00.000Z' } });
    } finally {
      await queue.close();
      await raw.close();
    }
  });

  test('a basePath that does not start with / is refused, saying what it got', async () => {
    for (const basePath of ['ops/inbox', '', ' /ops']) {
      await expect(createInboxDashboard(wire.inbox, { framework: 'hono', basePath, credential: CREDENTIAL })).rejects.toThrow(`[svc-sdk] createInboxDashboard: basePath must start with / (got ${JSON.stringify(basePath)})`);
    }
  });

  test('served alone: the same 401 and 403, a plain-text 404 off its routes', async () => {
    const served = await serveInboxDashboard(wire.inbox, { credential: CREDENTIAL });
    try {
      expect(await fromResponse(await fetch(`${served.url}api/queues`))).toEqual({ status: 401, contentType: 'text/plain; charset=utf-8', challenge: CHALLENGE, body: SIGN_IN });
      const refused = await fromResponse(await fetch(`${served.url}api/queues/wire/add`, { method: 'POST', headers: { authorization: TOKEN } }));
      expect([refused.status, refused.contentType, refused.challenge]).toEqual([403, 'application/json; charset=utf-8', null]);
      const page = await fromResponse(await fetch(served.url, { headers: { authorization: TOKEN } }));
      expect([page.status, baseHrefOf(page.body)]).toEqual([200, '/']);
      expect(await fromResponse(await fetch(`${served.url}nothing/here`, { headers: { authorization: TOKEN } }))).toEqual({ status: 404, contentType: 'text/plain', challenge: null, body: 'not found' });
      // A path bull-board cannot decode fails in its router: a plain-text 500 that says nothing of it.
      expect(await fromResponse(await fetch(`${served.url}queue/%E0%A4%A`, { headers: { authorization: TOKEN } }))).toEqual({ status: 500, contentType: 'text/plain', challenge: null, body: 'dashboard failed' });
    } finally {
      await served.close();
    }
  });

  test('served alone: a port already taken is a rejection of serveInboxDashboard, and close() ends a request still arriving', async () => {
    const first = await serveInboxDashboard(wire.inbox, { credential: CREDENTIAL });
    try {
      const port = Number(new URL(first.url).port);
      await expect(serveInboxDashboard(wire.inbox, { credential: CREDENTIAL, port })).rejects.toThrow(/EADDRINUSE/);
      // A client that sent half its request: close() does not wait for the rest (Node's headers timeout is a minute).
      const socket = connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(`GET /api/queues HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${TOKEN}\r\n`);
      const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      await first.close();
      await ended;
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await first.close();
    }
  }, 20_000);
});
