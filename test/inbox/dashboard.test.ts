// The inbox's dashboard (bull-board) in Debian's headless Chromium, driven by playwright-core,
// against a real redis-server holding a dead letter: behind its credential (401 without it), the
// dead letter shown with its delivery_id, kind, attempts and last error, no replay while read-only
// (no retry button, and the API refuses it), and a replay that runs the delivery once enabled.
// Mounted in Express, in Hono, in Fastify, and served alone as `svc-sdk inbox ui` does.
// playwright-core comes from test/package.json (npm run test:deps installs it).
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bullmqInbox, createInboxDashboard, serveInboxDashboard, type BullmqInbox } from '../../src/inbox/index.js';
import { freePort } from '../webhooks/redis-server.js';
import { onRedisInbox } from './on-redis.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from './redis.js';
import { entry, until } from './support.js';

reportMissingRedis();

const CHROMIUM = '/usr/bin/chromium';
const playwrightPath = (() => {
  try {
    return createRequire(import.meta.url).resolve('playwright-core');
  } catch {
    return undefined;
  }
})();
const canBrowse = existsSync(CHROMIUM) && playwrightPath !== undefined;
if (!canBrowse) {
  const how = 'skipped: apt-get install chromium, and npm run test:deps (it installs playwright-core in test/)';
  if (process.env.CI === 'true') throw new Error(`[svc-sdk] the dashboard test needs Chromium and playwright-core: ${how}`);
  console.warn(`[svc-sdk] dashboard test ${how}`);
}

const CREDENTIAL = 'dashboard-secret-0123456789';

/** The few parts of playwright-core this test drives (its types live in test/node_modules, installed on demand). */
interface Locator {
  first(): Locator;
  last(): Locator;
  count(): Promise<number>;
  click(): Promise<void>;
  innerText(): Promise<string>;
  waitFor(options: { timeout: number }): Promise<void>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string): Locator;
  getByText(text: string, options?: { exact: boolean }): Locator;
  getByRole(role: 'button', options: { name: RegExp }): Locator;
  request: { put(url: string): Promise<{ status(): number; text(): Promise<string> }> };
}
interface Context {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface Browser {
  newContext(options: { httpCredentials: { username: string; password: string } }): Promise<Context>;
  close(): Promise<void>;
}
interface Playwright {
  chromium: { launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<Browser> };
}

describe.skipIf(!hasRedis || !canBrowse)('the inbox dashboard in headless Chromium', () => {
  let redis: TestRedis;
  let inbox: BullmqInbox;
  let browser: Browser;
  const ran: string[] = [];
  let failing = true;
  let worker: { close(): Promise<void> };
  beforeAll(async () => {
    redis = await startTestRedis(['--appendonly', 'yes']);
    inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: redis.port }, queue: 'board', warn: () => {} });
    await inbox.put(entry('dlv_dead_1', { room_id: 5, document_id: 9, filename: 'nda.pdf', uploader_id: 2 }));
    worker = inbox.process(
      (event) => {
        if (failing) throw new Error('CRM answered 503 for room 5');
        ran.push(event.delivery_id);
      },
      { attempts: 2, backoff: 10 },
    );
    await until(async () => (await inbox.stats()).dead === 1);
    failing = false;
    const { chromium } = (await import(playwrightPath!)) as Playwright;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await inbox?.close();
    await redis?.stop();
    redis?.remove();
  });

  /** Opens the failed list of the queue at `base`, signed in, and waits for the dead letter's row. */
  const openDeadLetters = async (base: string) => {
    const context = await browser.newContext({ httpCredentials: { username: 'ops', password: CREDENTIAL } });
    const page = await context.newPage();
    await page.goto(`${base}queue/board?status=failed`);
    await page.getByText('dlv_dead_1').first().waitFor({ timeout: 20_000 });
    return { context, page };
  };

  test('express, read-only: 401 without the credential; the dead letter shows its delivery_id, kind, attempts and last error; no replay, in the page or the API', async () => {
    const express = (await import('express')).default;
    const app = express();
    app.use('/admin/inbox', await createInboxDashboard(inbox, { framework: 'express', basePath: '/admin/inbox', credential: CREDENTIAL }));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${origin}/admin/inbox/`)).status).toBe(401);
      const wrong = await fetch(`${origin}/admin/inbox/api/queues`, { headers: { authorization: `Basic ${btoa('ops:not-the-secret')}` } });
      expect(wrong.status).toBe(401);
      const { context, page } = await openDeadLetters(`${origin}/admin/inbox/`);
      try {
        const text = await page.locator('body').innerText();
        // Its kind and delivery_id as its name, the attempts it took.
        expect(text).toContain('document.uploaded · delivery_id dlv_dead_1');
        expect(text).toContain('attempt #2');
        // Its last error, in the entry's Error tab.
        await page.getByText('Error', { exact: true }).first().click();
        await page.getByText('CRM answered 503 for room 5').first().waitFor({ timeout: 10_000 });
        expect(await page.getByRole('button', { name: /retry/i }).count()).toBe(0);
        // The API refuses the replay even when asked directly, signed in.
        const refused = await page.request.put(`${origin}/admin/inbox/api/queues/board/d_dlv_dead_1/retry/failed`);
        expect(refused.status()).toBe(403);
        expect(await refused.text()).toContain('read-only');
        expect((await inbox.deadLetters()).map((letter) => letter.deliveryId)).toEqual(['dlv_dead_1']);
      } finally {
        await context.close();
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  test('served alone on loopback with replay enabled (svc-sdk inbox ui --allow-replay): the retry button replays the dead letter, and it runs once; other changes stay refused', async () => {
    const served = await serveInboxDashboard(inbox, { credential: CREDENTIAL, allowReplay: true });
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    try {
      const { context, page } = await openDeadLetters(served.url);
      try {
        const cleaned = await page.request.put(`${served.url}api/queues/board/clean/failed`);
        expect(cleaned.status()).toBe(403);
        await page.getByRole('button', { name: /retry/i }).first().click();
        // bull-board may ask to confirm a retry.
        const confirm = page.getByRole('button', { name: /^(confirm|retry|ok|yes)$/i });
        if (await confirm.count()) await confirm.last().click().catch(() => undefined);
        await until(() => ran.includes('dlv_dead_1'), 15_000);
        expect(ran).toEqual(['dlv_dead_1']);
        expect(await inbox.deadLetters()).toEqual([]);
      } finally {
        await context.close();
      }
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe.skipIf(!hasRedis)('createInboxDashboard: what it refuses, in every framework', () => {
  const board = onRedisInbox('board2', 'x1');

  test('a missing or short credential, a basePath without /, an unknown framework, not an inbox: refused when made', async () => {
    await expect(createInboxDashboard(board.inbox, { framework: 'express', credential: '' })).rejects.toThrow(/credential must be a secret of at least 16 characters/);
    // 15 characters, or something with a length of 16 that is not text: refused; 16 characters: accepted.
    for (const credential of ['c'.repeat(15), Array.from({ length: 16 }, () => 'c') as never]) {
      await expect(createInboxDashboard(board.inbox, { framework: 'express', credential })).rejects.toThrow(/credential must be a secret of at least 16 characters/);
    }
    await expect(createInboxDashboard(board.inbox, { framework: 'express', credential: 'c'.repeat(16) })).resolves.toBeTypeOf('function');
    await expect(createInboxDashboard(board.inbox, { framework: 'express', credential: CREDENTIAL, basePath: 'admin' })).rejects.toThrow(/basePath must start with \//);
    await expect(createInboxDashboard(board.inbox, { framework: 'koa' as never, credential: CREDENTIAL })).rejects.toThrow(/framework must be express, fastify or hono/);
    await expect(createInboxDashboard({} as BullmqInbox, { framework: 'express', credential: CREDENTIAL })).rejects.toThrow(/pass the inbox bullmqInbox\(\) made/);
  });

  test('express: which credentials sign in, which methods and routes pass, read-only or replaying; the entries named by kind and delivery_id', async () => {
    const express = (await import('express')).default;
    const app = express();
    app.use('/ro', await createInboxDashboard(board.inbox, { framework: 'express', basePath: '/ro/', credential: CREDENTIAL }));
    app.use('/rw', await createInboxDashboard(board.inbox, { framework: 'express', basePath: '/rw', credential: CREDENTIAL, allowReplay: true }));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ask = (path: string, authorization?: string, method = 'GET') => fetch(`${origin}${path}`, { method, headers: authorization === undefined ? {} : { authorization } });
    const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
    try {
      const refused = await ask('/ro/api/queues');
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Basic realm="svc-sdk inbox", charset="UTF-8"');
      expect(await refused.text()).toBe('sign in: the dashboard credential is the password (any user name)');
      // The password after the first colon, any user name (an empty one too), the scheme in any case; a Bearer token.
      for (const good of [basic(`ops:${CREDENTIAL}`), basic(`:${CREDENTIAL}`), `basic ${Buffer.from(`x:${CREDENTIAL}`).toString('base64')}`, `Bearer ${CREDENTIAL}`, `BEARER ${CREDENTIAL}`, `Bearer  ${CREDENTIAL}`, `Bearer \t${CREDENTIAL}`]) {
        expect((await ask('/ro/api/queues', good)).status).toBe(200);
      }
      // No colon, one byte off, longer or shorter, another scheme, the token as a user name: refused.
      // A scheme is the whole word: Basicx, xBasic, Bearerx, xBearer are not Basic nor Bearer.
      const encoded = Buffer.from(`ops:${CREDENTIAL}`).toString('base64');
      for (const bad of [basic(CREDENTIAL), basic(`ops:${CREDENTIAL.slice(0, -1)}X`), basic(`ops:${CREDENTIAL}x`), basic(`ops:${CREDENTIAL.slice(1)}`), `Token ${CREDENTIAL}`, basic(`${CREDENTIAL}:`), CREDENTIAL, 'Bearer', `Basicx ${encoded}`, `xBasic ${encoded}`, `Bearerx ${CREDENTIAL}`, `xBearer ${CREDENTIAL}`]) {
        expect((await ask('/ro/api/queues', bad)).status).toBe(401);
      }
      const token = `Bearer ${CREDENTIAL}`;
      expect((await ask('/ro/api/queues', token, 'HEAD')).status).toBe(200);
      // Read-only: no change of any kind, replay included.
      for (const [method, path] of [['PUT', '/ro/api/queues/board2/retry/failed'], ['PUT', '/ro/api/queues/board2/d_x1/retry/failed'], ['POST', '/ro/api/queues/board2/add'], ['DELETE', '/ro/api/queues/board2/d_x1']] as const) {
        const answer = await ask(path, token, method);
        expect(answer.status).toBe(403);
        expect(await answer.json()).toEqual({ error: 'read-only: replay is enabled with createInboxDashboard({ allowReplay: true }) or svc-sdk inbox ui --allow-replay' });
      }
      // Replaying: bull-board's retry routes (one job's, a state's, a trailing slash) pass, by PUT only; nothing else.
      for (const path of ['/rw/api/queues/board2/retry/failed', '/rw/api/queues/board2/d_x1/retry/failed', '/rw/api/queues/board2/retry/failed/']) {
        expect((await ask(path, token, 'PUT')).status).not.toBe(403);
      }
      for (const [method, path] of [['POST', '/rw/api/queues/board2/retry/failed'], ['PUT', '/rw/api/queues/board2/clean/failed'], ['PUT', '/rw/api/queues/board2/a/b/retry/failed'], ['PUT', '/rw/xapi/queues/board2/retry/failed'], ['PUT', '/rw/x/api/queues/board2/retry/failed'], ['PUT', '/rw/api/queues/board2/retry/failed/more']] as const) {
        const answer = await ask(path, token, method);
        expect(answer.status).toBe(403);
        expect(await answer.json()).toEqual({ error: 'this dashboard replays dead letters only' });
      }
      expect(await board.inbox.stats()).toMatchObject({ waiting: 1 });
      // Each entry: its kind and delivery_id as its name, its body read as the delivery, when it was stored.
      const listed = (await (await ask('/ro/api/queues?activeQueue=board2&status=waiting&page=1', token)).json()) as { queues: Array<{ name: string; jobs: Array<{ name: string; data: { delivery: { delivery_id: string }; receivedAt: string } }> }> };
      const [job] = listed.queues.find((queue) => queue.name === 'board2')?.jobs ?? [];
      expect(job?.name).toBe('document.uploaded · delivery_id x1');
      expect(job?.data.delivery.delivery_id).toBe('x1');
      expect(job?.data.receivedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // The queue says what it is, and the page its title.
      expect((listed.queues.find((queue) => queue.name === 'board2') as { description?: string } | undefined)?.description).toBe('svc-sdk webhook inbox: one entry per delivery_id; failed = dead letters');
      expect(await (await ask('/ro/', token)).text()).toContain('svc-sdk inbox');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('served alone on a host and port of one\'s own: its URL (IPv6 in brackets), the credential and read-only rule, 404 off its routes, and close() ends it', async () => {
    const port = await freePort();
    const served = await serveInboxDashboard(board.inbox, { credential: CREDENTIAL, host: '::1', port });
    const token = { authorization: `Bearer ${CREDENTIAL}` };
    try {
      expect(served.url).toBe(`http://[::1]:${port}/`);
      expect((await fetch(`${served.url}api/queues`)).status).toBe(401);
      expect((await fetch(`${served.url}api/queues`, { headers: token })).status).toBe(200);
      const refused = await fetch(`${served.url}api/queues/board2/retry/failed`, { method: 'PUT', headers: token });
      expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([403, expect.stringMatching(/^read-only/)]);
      const missing = await fetch(`${served.url}api/nothing-here`, { headers: token });
      expect([missing.status, await missing.text()]).toEqual([404, 'not found']);
    } finally {
      await served.close();
    }
    await expect(fetch(`${served.url}api/queues`, { headers: token })).rejects.toThrow();
  });

  test('hono and fastify: the same credential and read-only rule, bearer accepted', async () => {
    const { Hono } = await import('hono');
    type HonoApp = InstanceType<typeof Hono>;
    const app = new Hono();
    app.route('/ops/inbox', (await createInboxDashboard(board.inbox, { framework: 'hono', basePath: '/ops/inbox', credential: CREDENTIAL })) as unknown as HonoApp);
    expect((await app.request('/ops/inbox/api/queues')).status).toBe(401);
    const listed = await app.request('/ops/inbox/api/queues?activeQueue=board2&status=waiting&page=1', { headers: { authorization: `Bearer ${CREDENTIAL}` } });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).toContain('delivery_id x1');
    expect((await app.request('/ops/inbox/api/queues/board2/empty', { method: 'PUT', headers: { authorization: `Bearer ${CREDENTIAL}` } })).status).toBe(403);

    const fastify = (await import('fastify')).default();
    await fastify.register(await createInboxDashboard(board.inbox, { framework: 'fastify', basePath: '/ops/inbox', credential: CREDENTIAL }), { prefix: '/ops/inbox' });
    try {
      expect((await fastify.inject({ method: 'GET', url: '/ops/inbox/api/queues' })).statusCode).toBe(401);
      const basic = { authorization: `Basic ${Buffer.from(`anyone:${CREDENTIAL}`).toString('base64')}` };
      expect((await fastify.inject({ method: 'GET', url: '/ops/inbox/api/queues?activeQueue=board2&status=waiting&page=1', headers: basic })).statusCode).toBe(200);
      expect((await fastify.inject({ method: 'PUT', url: '/ops/inbox/api/queues/board2/retry/failed', headers: basic })).statusCode).toBe(403);
    } finally {
      await fastify.close();
    }
    expect(await board.inbox.stats()).toMatchObject({ waiting: 1 });
  });

  test('hono and fastify replaying, under a base path and at the root: the retry routes pass, other changes do not', async () => {
    const token = { authorization: `Bearer ${CREDENTIAL}` };
    const { Hono } = await import('hono');
    type HonoApp = InstanceType<typeof Hono>;
    for (const base of ['/ops/inbox', '/']) {
      const app = new Hono();
      app.route(base, (await createInboxDashboard(board.inbox, { framework: 'hono', basePath: base, credential: CREDENTIAL, allowReplay: true })) as unknown as HonoApp);
      const at = (path: string) => `${base === '/' ? '' : base}${path}`;
      expect((await app.request(at('/api/queues/board2/retry/failed'), { method: 'PUT', headers: token })).status, `hono at ${base}`).not.toBe(403);
      expect((await app.request(at('/api/queues/board2/clean/failed'), { method: 'PUT', headers: token })).status, `hono at ${base}`).toBe(403);
      const fastify = (await import('fastify')).default();
      const plugin = await createInboxDashboard(board.inbox, { framework: 'fastify', basePath: base, credential: CREDENTIAL, allowReplay: true });
      await fastify.register(plugin, base === '/' ? {} : { prefix: base });
      try {
        expect((await fastify.inject({ method: 'PUT', url: at('/api/queues/board2/retry/failed'), headers: token })).statusCode, `fastify at ${base}`).not.toBe(403);
        expect((await fastify.inject({ method: 'PUT', url: at('/api/queues/board2/clean/failed'), headers: token })).statusCode, `fastify at ${base}`).toBe(403);
      } finally {
        await fastify.close();
      }
    }
    expect(await board.inbox.stats()).toMatchObject({ waiting: 1 });
  });
});
