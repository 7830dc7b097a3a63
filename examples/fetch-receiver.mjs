// Receive signed webhooks in any fetch-standard runtime: createWebhookHandler is (Request) => Promise<Response>.
//   Next.js (app/api/webhooks/route.ts):  export const POST = handler;
//   Hono:                                 app.post('/webhooks', (c) => handler(c.req.raw));
//   Cloudflare Workers:                   export default { fetch: handler };
//   Bun:                                  Bun.serve({ port: 3000, fetch: handler });
//   Deno:                                 Deno.serve({ port: 3000 }, handler);
//   Node (below):                         serve({ fetch: handler, port: 3000 }) from @hono/node-server
//   Express, Fastify, Koa, node:http:     toNodeListener(handler) (examples/express-receiver.mjs)
// Run: SVC_WEBHOOK_SECRET=whsec_... node examples/fetch-receiver.mjs   (`--self-test` sends itself one delivery)
import { serve } from '@hono/node-server';
import { createWebhookHandler, signPayload } from 'svc-sdk/webhooks';

const secret = process.env.SVC_WEBHOOK_SECRET ?? 'whsec_example_secret';

// 401 on a bad signature, 400 on a bad body or a timestamp outside the replay window (12 h), 413 over
// maxBodyBytes (1 MiB), 200 once `on` resolved, 500 if it throws (the service retries); a delivery_id
// already processed is acknowledged without calling `on` again.
const handler = createWebhookHandler({
  secret,
  on: async (event) => {
    if (event.event === 'credit.low') console.log(`credits low: ${event.data.balance} <= ${event.data.threshold}`);
    else console.log(`received ${event.event} (${event.delivery_id})`);
  },
  // This process outlives its answers: with a remote dedupe store (Redis) an answer need not wait for
  // the store to record the delivery. On Cloudflare Workers or Vercel, pass their waitUntil instead.
  waitUntil: () => {},
});

const server = serve({ fetch: handler, port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1' }, async ({ port }) => {
  const url = `http://127.0.0.1:${port}/webhooks`;
  console.log(`listening on ${url}`);
  if (!process.argv.includes('--self-test')) return;
  const body = JSON.stringify({
    event: 'credit.low',
    version: '1.0',
    delivery_id: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    data: { balance: 90, threshold: 100 },
  });
  const init = { method: 'POST', body, headers: { 'x-svc-signature': await signPayload(body, secret) } };
  for (const attempt of ['first', 'retry']) {
    const response = await fetch(url, init);
    console.log(`${attempt}:`, response.status, await response.text());
  }
  server.close();
});
