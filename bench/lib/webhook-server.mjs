// A webhook receiver in its own process, for bench/webhook-throughput.mjs. argv: <kind> [redis port]
//   bare         node:http that reads the body, verifies the signature (createHmac + timingSafeEqual)
//                and answers 200: the limit, doing nothing a receiver could skip
//   node-memory  toNodeListener(createWebhookHandler(...)), the default in-memory dedupe
//   node-redis   the same with createRedisDedupeStore
//   hono-memory  createWebhookHandler served by @hono/node-server, in-memory dedupe
//   hono-redis   the same with createRedisDedupeStore, and `waitUntil: () => {}` as the README says for a
//                long-lived server (the answer does not wait for the store to record the delivery)
//   hono-redis-waiting  the same without waitUntil: the answer waits for that recording (a serverless default)
//   hono-bare    @hono/node-server with a fetch handler doing the bare server's work: the ceiling of any
//                fetch handler served that way
//   bare-receiver   the bare server plus the least any receiver must add, hand-written: the body as
//                text, JSON.parse, the envelope's fields checked, the timestamp parsed and its zone
//                checked, the delivery_id claimed and then recorded in two Maps bounded at 50 000 ids
//                (the memory store's default): the floor of a receiver with memory dedupe
//   hono-receiver   the same work behind @hono/node-server
//   bare-bullmq  the bare server plus the least a BullMQ inbox must do: read delivery_id and the kind, then
//                queue.add(kind, { body, receivedAt }, { jobId, removeOnComplete, removeOnFail }) (awaited), and
//                answer: the floor of any BullMQ ingress (bench/inbox.mjs)
//   node-inbox   toNodeListener(createWebhookHandler({ secret, inbox: bullmqInbox(...) }))
//   express-inbox  the same listener as an Express app's POST /webhooks route (bench/inbox-dashboard.mjs)
//   express-inbox-dashboard  the same app with the inbox's dashboard (createInboxDashboard, bull-board)
//                mounted at /admin/inbox before the route, on the same inbox, checked to answer once
//   <kind>-baseline  a receiver kind above from the A/B baseline's build (`npm run bench -- --baseline <ref>`)
//   bare-redis   the bare server plus the least a Redis dedupe must do: read delivery_id, claim it with SET NX
//                (awaited), answer, then mark it done (not awaited): the ceiling of any Redis-backed dedupe
//   redis-receiver  the same plus the envelope and timestamp checks of bare-receiver: the floor of a
//                receiver with Redis dedupe (the least any receiver must do, and the Redis round trip)
//   hono-redis-receiver  the same as a fetch handler behind @hono/node-server: the floor of hono-redis
// Prints nothing; sends { port } over IPC once listening, and { cpu } (µs used so far) when asked 'cpu'.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { serve } from '@hono/node-server';
import { createClient } from 'redis';

export const SECRET = 'whsec_bench_throughput_0123456789abcdef';
const [kindAsked, redisPort] = process.argv.slice(2);
// `node-memory-baseline`: the same receiver from the A/B baseline's build (bench/lib/baseline.mjs).
const kind = kindAsked.replace(/-baseline$/, '');
const { createRedisDedupeStore, createWebhookHandler, toNodeListener } = await import(kindAsked === kind ? 'svc-sdk/webhooks' : 'svc-sdk-baseline/webhooks');
const ready = (server) => process.send?.({ port: server.address().port });
process.on('disconnect', () => process.exit(0));
// The bench asks for this process's CPU time around each run: µs of CPU per delivery is the
// receiver's own cost, whatever the load client (on the other core) can send.
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  }
});

const ZONED = /(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * The least any receiver must do with a body whose signature checked out: parse the envelope,
 * check its fields, and check its timestamp (against `now`) and zone. The event, or undefined when it is refused.
 */
const envelopeOf = (body, now = Date.now()) => {
  const event = JSON.parse(typeof body === 'string' ? body : body.toString());
  if (typeof event.event !== 'string' || typeof event.delivery_id !== 'string' || typeof event.timestamp !== 'string' || typeof event.version !== 'string' || typeof event.data !== 'object') return undefined;
  const at = Date.parse(event.timestamp);
  return now - at < 43_200_000 && ZONED.test(event.timestamp) ? event : undefined;
};

/**
 * The least a receiver with memory dedupe must do once the signature checked out: the envelope
 * (envelopeOf), then the id claimed and recorded done in bounded Maps. True when the delivery is new.
 */
const floorReceiver = () => {
  const claims = new Map();
  const done = new Map();
  let oldest;
  return (body) => {
    const now = Date.now();
    const event = envelopeOf(body, now);
    if (!event) return false;
    const id = event.delivery_id;
    if (done.has(id) || claims.has(id)) return false;
    claims.set(id, now + 300_000);
    claims.delete(id);
    done.set(id, now + 43_500_000);
    if (done.size > 50_000) {
      const next = (oldest ??= done.keys()).next();
      if (next.done) oldest = undefined;
      else done.delete(next.value);
    }
    return true;
  };
};

/** Whether the signature header is the HMAC of `body`: the bare servers' whole check. */
const verified = (header, body) => {
  const expected = Buffer.from(String(header).slice(7), 'hex');
  const digest = createHmac('sha256', SECRET).update(body).digest();
  return expected.length === 32 && timingSafeEqual(digest, expected);
};

/** A node:http listener that reads the body and verifies it (401 when it does not check out), then hands it to `handle(body, res)`. */
const verifyingListener = (handle) => (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (verified(req.headers['x-svc-signature'], body)) return void handle(body, res);
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end('{"error":"invalid_signature"}');
  });
};

/** A node:http server that reads the body, verifies it, and answers 200 when `accept(body)` too (the floor's work, or nothing). */
function bareNode(accept) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const valid = verified(req.headers['x-svc-signature'], body) && (!accept || accept(body));
      res.writeHead(valid ? 200 : 401, { 'content-type': 'application/json' });
      res.end(valid ? '{"received":true}' : '{"error":"invalid_signature"}');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => ready(server));
}

/** The same as a fetch handler behind @hono/node-server. */
function bareHono(accept) {
  const server = serve(
    {
      fetch: async (request) => {
        const body = Buffer.from(await request.arrayBuffer());
        const valid = verified(request.headers.get('x-svc-signature'), body) && (!accept || accept(body));
        return new Response(valid ? '{"received":true}' : '{"error":"invalid_signature"}', {
          status: valid ? 200 : 401,
          headers: { 'content-type': 'application/json' },
        });
      },
      port: 0,
      hostname: '127.0.0.1',
    },
    () => ready(server),
  );
  server.keepAliveTimeout = 60_000;
}

if (kind === 'bare-bullmq' || kind === 'node-inbox') {
  const connection = { host: '127.0.0.1', port: Number(redisPort) };
  const queue = `bench-inbox-${process.pid}`;
  let listener;
  if (kind === 'bare-bullmq') {
    const { Queue } = await import('bullmq');
    const bull = new Queue(queue, { connection });
    listener = verifyingListener(async (body, res) => {
      const text = body.toString();
      const { delivery_id: id, event } = JSON.parse(text);
      await bull.add(event, { body: text, receivedAt: Date.now() }, { jobId: `d_${id}`, removeOnComplete: { age: 86_400 }, removeOnFail: false });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"received":true}');
    });
  } else {
    const { bullmqInbox } = await import(kindAsked === kind ? 'svc-sdk/inbox' : 'svc-sdk-baseline/inbox');
    listener = toNodeListener(createWebhookHandler({ secret: SECRET, inbox: bullmqInbox({ connection, queue, warn: () => {} }) }));
  }
  const server = createServer(listener);
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => ready(server));
} else if (kind === 'express-inbox' || kind === 'express-inbox-dashboard') {
  // The dashboard mounted in the receiver's own process and app, as the README shows, and the same app without it.
  const [{ default: express }, { bullmqInbox, createInboxDashboard }] = await Promise.all([import('express'), import('svc-sdk/inbox')]);
  const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: Number(redisPort) }, queue: `bench-inbox-${process.pid}`, warn: () => {} });
  const app = express();
  const credential = 'bench-dashboard-credential-0123';
  if (kind === 'express-inbox-dashboard') {
    app.use('/admin/inbox', await createInboxDashboard(inbox, { framework: 'express', basePath: '/admin/inbox', credential }));
  }
  app.post('/webhooks', toNodeListener(createWebhookHandler({ secret: SECRET, inbox })));
  const server = app.listen(0, '127.0.0.1', async () => {
    if (kind === 'express-inbox-dashboard') {
      // Mounted and answering (its page and its API), or the case measures nothing.
      const authorization = `Bearer ${credential}`;
      for (const path of ['/admin/inbox/', '/admin/inbox/api/queues']) {
        const answer = await fetch(`http://127.0.0.1:${server.address().port}${path}`, { headers: { authorization } });
        if (answer.status !== 200) throw new Error(`the dashboard answered ${answer.status} at ${path}`);
        await answer.arrayBuffer();
      }
    }
    ready(server);
  });
  server.keepAliveTimeout = 60_000;
} else if (kind === 'bare') bareNode();
else if (kind === 'bare-receiver') bareNode(floorReceiver());
else if (kind === 'hono-bare') bareHono();
else if (kind === 'hono-receiver') bareHono(floorReceiver());
else if (kind === 'bare-redis' || kind === 'redis-receiver') {
  const redis = await createClient({ url: `redis://127.0.0.1:${redisPort}` }).connect();
  const ok = JSON.stringify({ received: true });
  // The floor also checks the envelope and timestamp, as any receiver must; the ceiling only reads the id.
  const read = kind === 'redis-receiver' ? envelopeOf : (body) => JSON.parse(body.toString());
  const server = createServer(
    verifyingListener(async (body, res) => {
      const event = read(body);
      if (!event) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"error":"invalid_payload"}');
        return;
      }
      const key = `bare:${process.pid}:${event.delivery_id}`;
      const claimed = (await redis.set(key, 'processing', { NX: true, PX: 300_000 })) !== null;
      res.writeHead(claimed ? 200 : 409, { 'content-type': 'application/json' });
      res.end(claimed ? ok : '{"error":"delivery_in_progress"}');
      if (claimed) redis.set(key, 'done', { PX: 43_500_000 }).catch(() => {});
    }),
  );
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => ready(server));
} else if (kind === 'hono-redis-receiver') {
  // redis-receiver's work as a fetch handler behind @hono/node-server: the floor of hono-redis (whose
  // `waitUntil: () => {}` answers without waiting for the SET done either).
  const redis = await createClient({ url: `redis://127.0.0.1:${redisPort}` }).connect();
  const json = (status, text) => new Response(text, { status, headers: { 'content-type': 'application/json' } });
  const server = serve(
    {
      fetch: async (request) => {
        const body = Buffer.from(await request.arrayBuffer());
        if (!verified(request.headers.get('x-svc-signature'), body)) return json(401, '{"error":"invalid_signature"}');
        const event = envelopeOf(body);
        if (!event) return json(400, '{"error":"invalid_payload"}');
        const key = `bare:${process.pid}:${event.delivery_id}`;
        const claimed = (await redis.set(key, 'processing', { NX: true, PX: 300_000 })) !== null;
        if (claimed) redis.set(key, 'done', { PX: 43_500_000 }).catch(() => {});
        return claimed ? json(200, '{"received":true}') : json(409, '{"error":"delivery_in_progress"}');
      },
      port: 0,
      hostname: '127.0.0.1',
    },
    () => ready(server),
  );
  server.keepAliveTimeout = 60_000;
} else {
  const [front, store, waiting] = kind.split('-');
  let dedupe = true;
  if (store === 'redis') {
    const redis = await createClient({ url: `redis://127.0.0.1:${redisPort}` }).connect();
    dedupe = createRedisDedupeStore(redis, { prefix: `bench:${process.pid}:` });
  }
  // A long-lived server: nothing to keep alive after an answer (with the memory store, never called).
  const waitUntil = front === 'hono' && !waiting ? () => {} : undefined;
  const handler = createWebhookHandler({ secret: SECRET, dedupe, on: () => {}, waitUntil });
  if (front === 'node') {
    const server = createServer(toNodeListener(handler));
    server.keepAliveTimeout = 60_000;
    server.listen(0, '127.0.0.1', () => ready(server));
  } else {
    const server = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' }, () => ready(server));
    server.keepAliveTimeout = 60_000;
  }
}
