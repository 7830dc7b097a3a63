// The inbox's dashboard: bull-board (the dashboard BullMQ users already run) over the inbox's queue,
// mounted in an Express, Fastify or Hono app, or served alone on loopback (`svc-sdk inbox ui`).
// Behind a credential (HTTP Basic, any user name, or a Bearer token), compared in constant time;
// read-only unless replay is enabled, and then replay (bull-board's retry) is the one change it
// lets through: cleaning, emptying, removing, pausing and adding jobs stay refused here whatever
// bull-board's buttons say. Each entry shows its delivery_id, kind, attempts and last error.
// bull-board and its adapter are optional peers, loaded when a dashboard is made, never before.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Job, Queue } from 'bullmq';
import { readWebhookEvent } from '../webhooks/events.js';
import { queueOf, type BullmqInbox } from './bullmq.js';
import type { EntryData } from './bullmq-entries.js';
import { deliveryIdOf } from './job-id.js';

/** Options of `createInboxDashboard`. */
export interface InboxDashboardOptions {
  /** The app it is mounted in: `express` (a middleware), `fastify` (a plugin) or `hono` (an app to `route`). */
  framework: 'express' | 'fastify' | 'hono';
  /** Where it is mounted, as the browser sees it (`/admin/inbox`). Default `/`. */
  basePath?: string | undefined;
  /** The secret a person signs in with (the password of HTTP Basic, any user name; or `Authorization: Bearer`). At least 16 characters. */
  credential: string;
  /** Lets the dashboard replay dead letters (bull-board's retry). Default false: read-only. */
  allowReplay?: boolean | undefined;
}

/** What `createInboxDashboard` gives for each framework. */
export interface InboxDashboards {
  /**
   * `app.use(basePath, dashboard)`.
   *
   * @param request Express's request.
   * @param response Express's response.
   * @param next Express's next.
   */
  express: (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void;
  /**
   * `await app.register(dashboard, { prefix: basePath })`.
   *
   * @param instance The Fastify instance it is registered in.
   * @param options The plugin's options (the `prefix`).
   * @param done Fastify's callback.
   */
  fastify: (instance: unknown, options: unknown, done: (error?: Error) => void) => void;
  /** `app.route(basePath, dashboard)`: a Hono app. */
  hono: {
    /**
     * Answers one request of the dashboard.
     *
     * @param request The request Hono routed here.
     * @param rest Hono's environment and execution context.
     */
    fetch(request: Request, ...rest: unknown[]): Response | Promise<Response>;
  };
}

/** A request as the guard sees it: method, path within the dashboard, authorization header. */
interface Asked {
  method: string;
  path: string;
  authorization: string | undefined;
}

/** The guard's answer: `undefined` lets the request through to bull-board. */
interface Refusal {
  status: 401 | 403;
  body: string;
  headers: Record<string, string>;
}

/** Bull-board's retry routes: one job's (`/api/queues/<q>/<job>/retry/<status>`) and all of a state's. */
const RETRY_ROUTE = /^\/api\/queues\/[^/]+\/(?:[^/]+\/)?retry\/[^/]+\/?$/;

/** The credential check and the read-only rule, the same for every framework. */
function guard(credential: string, allowReplay: boolean): (asked: Asked) => Refusal | undefined {
  const expected = Buffer.from(credential);
  const matches = (given: string | undefined) => {
    if (given === undefined) return false;
    const bytes = Buffer.from(given);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  };
  return ({ method, path, authorization }): Refusal | undefined => {
    const [scheme = '', value = ''] = (authorization ?? '').split(/\s+/, 2);
    const given = /^basic$/i.test(scheme) ? passwordOfBasic(value) : /^bearer$/i.test(scheme) ? value : undefined;
    if (!matches(given)) {
      return { status: 401, body: 'sign in: the dashboard credential is the password (any user name)', headers: { 'www-authenticate': 'Basic realm="svc-sdk inbox", charset="UTF-8"', 'content-type': 'text/plain; charset=utf-8' } };
    }
    const upper = method.toUpperCase();
    if (upper === 'GET' || upper === 'HEAD') return undefined;
    if (allowReplay && upper === 'PUT' && RETRY_ROUTE.test(path)) return undefined;
    return {
      status: 403,
      body: JSON.stringify({ error: allowReplay ? 'this dashboard replays dead letters only' : 'read-only: replay is enabled with createInboxDashboard({ allowReplay: true }) or svc-sdk inbox ui --allow-replay' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    };
  };
}

/** The password of an HTTP Basic credential (`user:password` in base64), or `undefined`. */
function passwordOfBasic(value: string): string | undefined {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

/** The queue adapter bull-board shows: the inbox's queue, entries named by kind and delivery_id, bodies read as events. */
async function boardQueue(queue: Queue<EntryData>, allowReplay: boolean) {
  const { BullMQAdapter } = await import('@bull-board/api/bullMQAdapter');
  const adapter = new BullMQAdapter(queue as unknown as Queue, {
    readOnlyMode: !allowReplay,
    allowRetries: allowReplay,
    description: 'svc-sdk webhook inbox: one entry per delivery_id; failed = dead letters',
  });
  // The list shows each job's name: the kind and the delivery_id (the job id is it, with a prefix).
  // Every inbox job has its id (its delivery's): bull-board lists jobs read from the queue.
  adapter.setFormatter('name', (job: Job<EntryData>) => `${job.name} · delivery_id ${deliveryIdOf(job.id as string)}`);
  // The data: the delivery as received, read, and when it was stored (not the digest: nothing to read there).
  adapter.setFormatter('data', (data: EntryData) => {
    const event = readWebhookEvent(data.body);
    return { delivery: typeof event === 'string' ? data.body : event, receivedAt: new Date(data.receivedAt).toISOString() };
  });
  return adapter;
}

/** `/admin/inbox/` → `/admin/inbox`; `/` (or only slashes) is `/`; a path must start with `/`. */
function basePathOf(basePath: string | undefined): string {
  const path = basePath ?? '/';
  if (!path.startsWith('/')) throw new TypeError(`[svc-sdk] createInboxDashboard: basePath must start with / (got ${JSON.stringify(path)})`);
  // The trailing slashes trimmed; the root, trimmed to nothing, is '/' again.
  return path.replace(/\/+$/, '') || '/';
}

function checkCredential(credential: unknown): asserts credential is string {
  if (typeof credential !== 'string' || credential.length < 16) {
    throw new TypeError('[svc-sdk] createInboxDashboard: credential must be a secret of at least 16 characters (the password people sign in with): generate one, e.g. openssl rand -hex 16');
  }
}

/**
 * bull-board for the inbox's queue, to mount in an Express, Fastify or Hono app: behind
 * `credential`, read-only unless `allowReplay`. Needs `@bull-board/api` and the framework's adapter
 * (`@bull-board/express`, `@bull-board/fastify` or `@bull-board/hono`) installed.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { bullmqInbox, createInboxDashboard } from 'svc-sdk/inbox';
 *
 * const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: 6379 } });
 * const app = express();
 * app.use('/admin/inbox', await createInboxDashboard(inbox, { framework: 'express', basePath: '/admin/inbox', credential: process.env.INBOX_UI_SECRET! }));
 * ```
 *
 * @param inbox The inbox `bullmqInbox()` made.
 * @param options The `framework`, the `basePath` it is mounted at, the `credential` it asks for, and `allowReplay`.
 */
export async function createInboxDashboard<F extends keyof InboxDashboards>(inbox: BullmqInbox, options: InboxDashboardOptions & { framework: F }): Promise<InboxDashboards[F]> {
  checkCredential(options?.credential);
  const queue = queueOf(inbox);
  if (!queue) throw new TypeError('[svc-sdk] createInboxDashboard: pass the inbox bullmqInbox() made');
  const basePath = basePathOf(options.basePath);
  const allowReplay = options.allowReplay === true;
  const check = guard(options.credential, allowReplay);
  const { createBullBoard } = await import('@bull-board/api');
  const queues = [await boardQueue(queue, allowReplay)];
  const title = { uiConfig: { boardTitle: 'svc-sdk inbox' } };
  type BoardAdapter = Parameters<typeof createBullBoard>[0]['serverAdapter'];
  if (options.framework === 'express') {
    const { ExpressAdapter } = await import('@bull-board/express');
    const serverAdapter = new ExpressAdapter().setBasePath(basePath);
    createBullBoard({ queues, serverAdapter: serverAdapter as unknown as BoardAdapter, options: title });
    const board = serverAdapter.getRouter() as InboxDashboards['express'];
    const middleware: InboxDashboards['express'] = (request, response, next) => {
      // Express gives the path within its mount; a plain http server (serveInboxDashboard) the URL, and always a method.
      const path = (request as { path?: string }).path ?? new URL(request.url as string, 'http://x').pathname;
      const refusal = check({ method: request.method as string, path, authorization: request.headers.authorization });
      if (!refusal) return board(request, response, next);
      response.writeHead(refusal.status, refusal.headers).end(refusal.body);
    };
    return middleware as InboxDashboards[F];
  }
  if (options.framework === 'hono') {
    const [{ HonoAdapter }, { serveStatic }] = await Promise.all([import('@bull-board/hono'), import('@hono/node-server/serve-static')]);
    const serverAdapter = new HonoAdapter(serveStatic).setBasePath(basePath);
    createBullBoard({ queues, serverAdapter: serverAdapter as unknown as BoardAdapter, options: title });
    const board = serverAdapter.registerPlugin();
    // A Hono app of the adapter's own Hono (not one this library would import): the guard first, then the board.
    const app = new (board.constructor as new () => typeof board)();
    app.use('*', async (context, next) => {
      // Only matched against the retry routes, which an empty path (the dashboard's own root) is not either.
      const path = new URL(context.req.url).pathname.slice(basePath === '/' ? 0 : basePath.length);
      const refusal = check({ method: context.req.method, path, authorization: context.req.header('authorization') });
      if (refusal) return new Response(refusal.body, { status: refusal.status, headers: refusal.headers });
      await next();
    });
    app.route('/', board);
    return app as unknown as InboxDashboards[F];
  }
  if (options.framework === 'fastify') {
    const { FastifyAdapter } = await import('@bull-board/fastify');
    const serverAdapter = new FastifyAdapter().setBasePath(basePath);
    createBullBoard({ queues, serverAdapter: serverAdapter as unknown as BoardAdapter, options: title });
    const plugin = serverAdapter.registerPlugin() as unknown as InboxDashboards['fastify'];
    const guarded: InboxDashboards['fastify'] = (instance, pluginOptions, done) => {
      const scope = instance as { addHook(name: 'onRequest', hook: (request: { method: string; url: string; headers: Record<string, string | undefined> }, reply: { code(status: number): { headers(h: Record<string, string>): { send(body: string): void } } }, next: () => void) => void): void };
      scope.addHook('onRequest', (request, reply, next) => {
        const path = new URL(request.url, 'http://x').pathname.slice(basePath === '/' ? 0 : basePath.length);
        const refusal = check({ method: request.method, path, authorization: request.headers.authorization });
        if (!refusal) return next();
        reply.code(refusal.status).headers(refusal.headers).send(refusal.body);
      });
      plugin(instance, pluginOptions, done);
    };
    return guarded as InboxDashboards[F];
  }
  throw new TypeError(`[svc-sdk] createInboxDashboard: framework must be express, fastify or hono (got ${JSON.stringify((options as { framework?: unknown }).framework)})`);
}

/** Options of `serveInboxDashboard`. */
export interface ServeInboxDashboardOptions {
  /** The secret people sign in with (HTTP Basic password, any user name). At least 16 characters. */
  credential: string;
  /** Default 127.0.0.1: on loopback only, unless you say otherwise. */
  host?: string | undefined;
  /** Default 0: a free port (see `url`). */
  port?: number | undefined;
  /** Lets the dashboard replay dead letters. Default false: read-only. */
  allowReplay?: boolean | undefined;
}

/** A dashboard served alone: where it is, and how to stop it. */
export interface ServedInboxDashboard {
  readonly url: string;
  /** Stops the server and closes its connections. */
  close(): Promise<void>;
}

/**
 * The dashboard alone on its own server (what `svc-sdk inbox ui` runs), on loopback by default. Needs `@bull-board/express`.
 *
 * @param inbox The inbox `bullmqInbox()` made.
 * @param options The `credential` it asks for, the `host` and `port` it listens on, and `allowReplay`.
 */
export async function serveInboxDashboard(inbox: BullmqInbox, options: ServeInboxDashboardOptions): Promise<ServedInboxDashboard> {
  const dashboard = await createInboxDashboard(inbox, { framework: 'express', basePath: '/', credential: options.credential, allowReplay: options.allowReplay });
  const server = createServer((request, response) =>
    dashboard(request, response, (error) => {
      response.writeHead(error ? 500 : 404, { 'content-type': 'text/plain' }).end(error ? 'dashboard failed' : 'not found');
    }),
  );
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
