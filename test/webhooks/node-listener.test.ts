// toNodeListener on real servers over loopback: node:http, Express 5 and Fastify, each given the
// listener as its docs (and the README) show, with the default memory dedupe and with Redis.
import { createHmac } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import express from 'express';
import Fastify from 'fastify';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import type { NodeWebhookListener, RedisClientLike, WebhookEvent, WebhookHandlerOptions } from '../../src/webhooks/index.js';
import { ENTRIES } from './entries.js';
import { freePort, hasRedis, reportMissingRedis, startRedis } from './redis-server.js';

const SECRET = 'whsec_node_listener_secret';

function envelope(deliveryId: string = crypto.randomUUID(), timestamp = new Date().toISOString()) {
  return JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: deliveryId, timestamp, data: {} });
}
const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Serves `listener` the way each framework's users would, on 127.0.0.1; resolves with the webhook URL and a close function. */
type Mount = (listener: NodeWebhookListener) => Promise<{ url: string; close: () => Promise<unknown> }>;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`)));
}
const closeServer = (server: Server) => () => new Promise((resolve) => server.close(resolve).closeAllConnections());

const SERVERS: Array<[string, Mount]> = [
  [
    'node:http',
    async (listener) => {
      const server = createServer((req, res) => void listener(req, res));
      return { url: await listen(server), close: closeServer(server) };
    },
  ],
  [
    'Express 5',
    async (listener) => {
      const app = express();
      app.post('/webhooks', listener);
      app.use(express.json()); // the app's other routes parse JSON; the webhook route comes first
      const server = createServer(app);
      return { url: await listen(server), close: closeServer(server) };
    },
  ],
  [
    'Fastify',
    async (listener) => {
      const app = Fastify();
      await app.register(async (scope) => {
        // In this scope no parser reads the body: the listener reads the raw bytes itself.
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
        scope.post('/webhooks', (request, reply) => {
          reply.hijack();
          return listener(request.raw, reply.raw);
        });
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/webhooks`, close: () => app.close() };
    },
  ],
];

const post = (url: string, body: string, signature = sign(body), headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-signature': signature, ...headers } });

async function answer(response: Response) {
  return { status: response.status, body: (await response.json()) as unknown, type: response.headers.get('content-type') };
}

/**
 * Streams up to `total` bytes (chunked, no Content-Length) until the answer comes; resolves with the
 * status, how many bytes were written by then, and whether the connection was closed.
 */
function streamUntilAnswered(url: string, total: number, declared?: number): Promise<{ status: number; written: number; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let written = 0;
    let answered = false;
    const headers = { 'content-type': 'application/json', 'x-svc-signature': sign('x'), ...(declared && { 'content-length': String(declared) }) };
    const req = httpRequest(url, { method: 'POST', headers });
    if (declared) req.flushHeaders(); // the headers alone; no byte of the body follows
    req.on('response', (res) => {
      answered = true;
      res.resume();
      res.on('end', () => {
        const socket = req.socket;
        // The server closes the connection rather than drain a body it will not read.
        const closed = res.headers.connection === 'close';
        socket?.destroy();
        resolve({ status: res.statusCode ?? 0, written, closed });
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && written < total) {
        written += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered && !declared) req.end();
    };
    pump();
  });
}

describe.each(ENTRIES)('%s entry: toNodeListener(createWebhookHandler(...))', (_entry, sdk) => {
  describe.each(SERVERS)('on %s', (_server, mount) => {
    let url: string;
    let close: () => Promise<unknown>;
    const on = vi.fn<(event: WebhookEvent) => void>();
    const onVerificationError = vi.fn<NonNullable<WebhookHandlerOptions['onVerificationError']>>();
    beforeAll(async () => {
      const listener = sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, onVerificationError, maxBodyBytes: 64 * 1024 }));
      ({ url, close } = await mount(listener));
    });
    afterAll(() => close?.());
    afterEach(() => {
      on.mockReset();
      onVerificationError.mockReset();
    });

    test('answers 200 { received: true } once on() resolved, and a retried delivery_id without calling on() again', async () => {
      const body = envelope();
      expect(await answer(await post(url, body))).toEqual({ status: 200, body: { received: true }, type: 'application/json' });
      expect(on).toHaveBeenCalledWith(JSON.parse(body));
      expect((await post(url, body)).status).toBe(200);
      expect(on).toHaveBeenCalledTimes(1);
    });

    test('answers 401 to a bad signature, and onVerificationError hears it with a Request for the delivery', async () => {
      const response = await post(`${url}?source=test`, envelope(), sign(envelope(), 'wrong-secret'));
      expect(await answer(response)).toEqual({ status: 401, body: { error: 'invalid_signature' }, type: 'application/json' });
      expect(on).not.toHaveBeenCalled();
      const [reason, request] = onVerificationError.mock.calls[0]!;
      expect(reason).toBe('invalid_signature');
      expect(request.method).toBe('POST');
      expect(new URL(request.url).pathname + new URL(request.url).search).toBe('/webhooks?source=test');
      expect(request.headers.get('x-svc-signature')).toMatch(/^sha256=/);
    });

    test('answers 400 to a correctly signed delivery stamped outside the replay window', async () => {
      const response = await post(url, envelope(undefined, '2001-09-09T01:46:40.000Z'));
      expect(await answer(response)).toMatchObject({ status: 400, body: { error: 'stale_timestamp' } });
      expect(on).not.toHaveBeenCalled();
    });

    test('answers 413 at once to a Content-Length over maxBodyBytes', async () => {
      const response = await post(url, 'a'.repeat(64 * 1024 + 1));
      expect(await answer(response)).toMatchObject({ status: 413, body: { error: 'body_too_large' } });
      expect(onVerificationError).toHaveBeenCalledWith('body_too_large', expect.any(Request));
    });

    test('answers 413 to a declared Content-Length over maxBodyBytes before a byte of the body is sent', async () => {
      const { status, written, closed } = await streamUntilAnswered(url, 0, 200 * 1024 * 1024);
      expect({ status, written, closed }).toEqual({ status: 413, written: 0, closed: true });
    });

    test('cuts off a streamed body as soon as it passes maxBodyBytes, and closes the connection', async () => {
      const total = 200 * 1024 * 1024;
      const { status, written, closed } = await streamUntilAnswered(url, total);
      expect(status).toBe(413);
      expect(closed).toBe(true);
      expect(written).toBeLessThan(total / 4); // answered long before the sender was done
    });
  });
});

describe.each(ENTRIES)('%s entry: toNodeListener on plain node:http', (_entry, sdk) => {
  // The frameworks route only POST to the listener; plain node:http hands it every method.
  test('answers 405 with Allow: POST to a GET, without reading on', async () => {
    const on = vi.fn();
    const server = createServer((req, res) => void sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on }))(req, res));
    const url = await listen(server);
    try {
      const response = await fetch(url);
      expect(await answer(response)).toEqual({ status: 405, body: { error: 'method_not_allowed' }, type: 'application/json' });
      expect(response.headers.get('allow')).toBe('POST');
      expect(on).not.toHaveBeenCalled();
    } finally {
      await closeServer(server)();
    }
  });
});

describe('toNodeListener and a slow store', () => {
  test('answers once on() resolved, without waiting for the store to record completion (the server outlives the answer)', async () => {
    const [[, sdk]] = ENTRIES;
    let record!: () => void;
    const recorded = new Promise<void>((resolve) => (record = resolve));
    const store = { claim: () => 'claimed' as const, complete: () => recorded, release() {} };
    // A deadline far off: an answer that waited for the recording would not come before the test's own timeout.
    const handler = sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe: store, storeTimeoutMs: 60_000 });
    const server = createServer((req, res) => void sdk.toNodeListener(handler)(req, res));
    const url = await listen(server);
    try {
      expect((await post(url, envelope())).status).toBe(200); // while completion is still pending
    } finally {
      record();
      await closeServer(server)();
    }
  });
});

describe('toNodeListener and a store that fails to record', () => {
  test.each([
    ['rejects', () => Promise.reject(new Error('redis down'))],
    ['throws', () => {
      throw new Error('redis down');
    }],
  ])('a recording that %s changes no answer (200: on() ran) and is no unhandled rejection', async (_how, complete) => {
    const [[, sdk]] = ENTRIES;
    const on = vi.fn();
    const onError = vi.fn();
    const store = { claim: () => Promise.resolve('claimed' as const), complete, release() {} };
    const server = createServer((req, res) => void sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, onError, dedupe: store }))(req, res));
    const url = await listen(server);
    try {
      expect((await post(url, envelope())).status).toBe(200);
      expect((await post(url, envelope())).status).toBe(200);
      expect(on).toHaveBeenCalledTimes(2);
      // Ignored, as the answer is decided: onError is for deliveries answered 500.
      expect(onError).not.toHaveBeenCalled();
    } finally {
      await closeServer(server)();
    }
  });
});

describe('toNodeListener when the sender goes away', () => {
  test('a connection closed mid-body is an unreadable body: on() not called, onVerificationError hears it', async () => {
    const [[, sdk]] = ENTRIES;
    const on = vi.fn();
    const onVerificationError = vi.fn();
    const settled = vi.fn();
    const listener = sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, onVerificationError }));
    const server = createServer((req, res) => void listener(req, res).then(settled));
    const url = await listen(server);
    try {
      const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000', 'x-svc-signature': sign('x') } });
      req.on('error', () => {});
      req.write('{"event":"ping.test",');
      await new Promise((resolve) => setTimeout(resolve, 50));
      req.destroy();
      await vi.waitFor(() => expect(onVerificationError).toHaveBeenCalledWith('unreadable_body', expect.any(Request)));
      // The listener's promise settles too: nothing is left waiting for a body that never comes.
      await vi.waitFor(() => expect(settled).toHaveBeenCalledTimes(1));
      expect(on).not.toHaveBeenCalled();
    } finally {
      await closeServer(server)();
    }
  });
});

describe('toNodeListener misuse', () => {
  const [[, sdk]] = ENTRIES;

  test('throws a [svc-sdk] TypeError for something that is not a handler, and for a bad bodyTimeoutMs', () => {
    expect(() => sdk.toNodeListener(undefined as never)).toThrow(/^\[svc-sdk\] toNodeListener: pass a webhook handler, e\.g\. toNodeListener\(createWebhookHandler/);
    expect(() => sdk.toNodeListener({} as never)).toThrow(/^\[svc-sdk\] toNodeListener: pass a webhook handler/);
    const handler = sdk.createWebhookHandler({ secret: SECRET, on() {} });
    for (const bodyTimeoutMs of [0, -1, Number.NaN, 2 ** 31, '10' as never]) {
      expect(() => sdk.toNodeListener(handler, { bodyTimeoutMs })).toThrow('[svc-sdk] toNodeListener: bodyTimeoutMs must be a number of ms > 0');
    }
  });

  async function expressWith(setup: (app: express.Express, listener: NodeWebhookListener) => void) {
    const on = vi.fn();
    const app = express();
    setup(app, sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on })));
    const server = createServer(app);
    return { url: await listen(server), close: closeServer(server), on };
  }

  test('express.json() before the route: 500 naming the fix, logged, on() not called', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { url, close, on } = await expressWith((app, listener) => {
      app.use(express.json());
      app.post('/webhooks', listener);
    });
    try {
      const { status, body } = await answer(await post(url, envelope()));
      expect(status).toBe(500);
      expect((body as { error: string }).error).toMatch(/^\[svc-sdk\] the request body was already parsed \(express\.json\(\)/);
      expect(log).toHaveBeenCalledWith(expect.stringMatching(/register app\.post\('\/webhooks', listener\) before app\.use\(express\.json\(\)\)/));
      expect(on).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
      await close();
    }
  });

  test("express.raw({ type: 'application/json' }) on the route: its Buffer is the raw body, verified", async () => {
    const { url, close, on } = await expressWith((app, listener) => app.post('/webhooks', express.raw({ type: 'application/json' }), listener));
    try {
      expect((await post(url, envelope())).status).toBe(200);
      expect((await post(url, envelope(), sign('other'))).status).toBe(401);
      expect(on).toHaveBeenCalledTimes(1);
    } finally {
      await close();
    }
  });

  test('express.raw({ type }) that does not match leaves req.body undefined and the stream unread: read and verified', async () => {
    const { url, close, on } = await expressWith((app, listener) =>
      app.post('/webhooks', express.raw({ type: 'application/octet-stream' }), listener),
    );
    try {
      expect((await post(url, envelope())).status).toBe(200);
      expect(on).toHaveBeenCalledTimes(1);
    } finally {
      await close();
    }
  });

  test("express.text({ type: 'application/json' }): the text it kept is the raw body, verified", async () => {
    const { url, close, on } = await expressWith((app, listener) => app.post('/webhooks', express.text({ type: 'application/json' }), listener));
    try {
      expect((await post(url, envelope())).status).toBe(200);
      expect(on).toHaveBeenCalledTimes(1);
    } finally {
      await close();
    }
  });

  test('a Buffer kept by express.raw() over maxBodyBytes is answered 413', async () => {
    const on = vi.fn();
    const app = express();
    app.post('/webhooks', express.raw({ type: 'application/json' }), sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, maxBodyBytes: 1024 })));
    const server = createServer(app);
    const url = await listen(server);
    try {
      const body = envelope().replace('"data":{}', `"data":{"pad":"${'x'.repeat(2000)}"}`);
      expect(await answer(await post(url, body))).toMatchObject({ status: 413, body: { error: 'body_too_large' } });
      expect(on).not.toHaveBeenCalled();
    } finally {
      await closeServer(server)();
    }
  });

  test('a request stream set to text (req.setEncoding) is read as its UTF-8 bytes', async () => {
    const on = vi.fn();
    const listener = sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on }));
    const server = createServer((req, res) => {
      req.setEncoding('utf8');
      void listener(req, res);
    });
    const url = await listen(server);
    try {
      const body = envelope().replace('"data":{}', '"data":{"note":"café ✓ 😀"}');
      expect((await post(url, body)).status).toBe(200);
      expect(on).toHaveBeenCalledWith(JSON.parse(body));
    } finally {
      await closeServer(server)();
    }
  });

  test('a middleware that read the stream and kept nothing: 500 naming the fix', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { url, close } = await expressWith((app, listener) => {
      app.use((req, _res, next) => {
        req.resume();
        req.on('end', () => next());
      });
      app.post('/webhooks', listener);
    });
    try {
      const { status, body } = await answer(await post(url, envelope()));
      expect(status).toBe(500);
      expect((body as { error: string }).error).toMatch(/read by a middleware that ran first and kept nothing/);
    } finally {
      log.mockRestore();
      await close();
    }
  });
});

describe.skipIf(!hasRedis)('toNodeListener with createRedisDedupeStore on a real redis-server', () => {
  let redisServer: ChildProcess;
  let redis: RedisClientLike & { get(key: string): Promise<unknown>; close(): Promise<unknown> };
  beforeAll(async () => {
    const port = await freePort();
    redisServer = await startRedis(port);
    redis = await createClient({ url: `redis://127.0.0.1:${port}` }).connect();
  });
  afterAll(async () => {
    await redis?.close();
    redisServer?.kill();
  });

  test('a fleet (node:http, Express 5 and Fastify, both entries) processes each delivery once, even when it arrives everywhere at once', async () => {
    const processed: string[] = [];
    const on = async (event: WebhookEvent) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      processed.push(event.delivery_id);
    };
    const fleet = await Promise.all(
      SERVERS.flatMap(([, mount]) =>
        ENTRIES.map(([, sdk]) =>
          mount(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, dedupe: sdk.createRedisDedupeStore(redis, { prefix: 'fleet:' }) }))),
        ),
      ),
    );
    try {
      const bodies = Array.from({ length: 5 }, () => envelope());
      // Every delivery to every receiver at once (a retry storm), then once more each afterwards.
      const first = await Promise.all(bodies.flatMap((body) => fleet.map(({ url }) => post(url, body).then((r) => r.status))));
      expect(first.filter((status) => status === 200).length).toBeGreaterThanOrEqual(bodies.length);
      expect(first.every((status) => status === 200 || status === 409)).toBe(true);
      const again = await Promise.all(bodies.flatMap((body) => fleet.map(({ url }) => post(url, body).then((r) => r.status))));
      expect(again.every((status) => status === 200)).toBe(true);
      expect(processed.sort()).toEqual(bodies.map((body) => JSON.parse(body).delivery_id).sort());
      expect(await redis.get(`fleet:${JSON.parse(bodies[0]!).delivery_id}`)).toBe('done');
    } finally {
      await Promise.all(fleet.map(({ close }) => close()));
    }
  });
});
reportMissingRedis();
