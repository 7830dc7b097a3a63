// Share webhook deduplication across a fleet of receivers with Redis: a delivery_id is processed once,
// whichever instance receives it. Works with node-redis (below) or ioredis (`new Redis(url)`).
//   REDIS_URL=redis://127.0.0.1:6379 SVC_WEBHOOK_SECRET=whsec_... node examples/redis-dedupe.mjs
import { createClient } from 'redis';
import { createRedisDedupeStore, createWebhookHandler, signPayload } from 'svc-sdk/webhooks';

const secret = process.env.SVC_WEBHOOK_SECRET ?? 'whsec_example_secret';
const redis = await createClient({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }).connect();

// Keys `svc-sdk:webhook:<delivery_id>`: 'processing' for 5 minutes while `on` runs, 'done' for 12 h 5 min
// after (longer than the handler's 12 h replay window, so a replay inside the window is a known duplicate).
const dedupe = createRedisDedupeStore(redis, { prefix: 'svc-sdk:webhook:' });

// Two receivers, as two instances behind a load balancer would be.
let processed = 0;
const on = (event) => {
  processed++;
  console.log(`processing ${event.delivery_id}`);
};
const instanceA = createWebhookHandler({ secret, on, dedupe });
const instanceB = createWebhookHandler({ secret, on, dedupe });

// The same delivery, as the service's retry would send it, reaching each instance once.
const body = JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: crypto.randomUUID(), timestamp: new Date().toISOString(), data: {} });
const delivery = async () =>
  new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers: { 'x-svc-signature': await signPayload(body, secret) } });

console.log('instance A:', (await instanceA(await delivery())).status);
console.log('instance B:', (await instanceB(await delivery())).status);
console.log(`processed ${processed} time(s)`);
await redis.close();
