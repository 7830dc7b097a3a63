// Receive signed webhooks in Express (4 or 5) with every guarantee of createWebhookHandler: a body
// limit, the signature, the replay window, dedupe by delivery_id, then your code.
//   SVC_WEBHOOK_SECRET=whsec_... node examples/express-receiver.mjs
// `--self-test` sends one signed delivery twice (the second is a retry: acknowledged, not processed) and exits.
import express from 'express';
import { createWebhookHandler, signPayload, toNodeListener } from 'svc-sdk/webhooks';

const secret = process.env.SVC_WEBHOOK_SECRET ?? 'whsec_example_secret';
const app = express();

// toNodeListener reads the raw body itself: mount the route before any app.use(express.json()),
// which would parse the body and lose the exact bytes the signature covers (it says so if it runs first).
app.post(
  '/webhooks',
  toNodeListener(
    createWebhookHandler({
      secret,
      // On by default: an in-memory store (one process). A fleet shares createRedisDedupeStore(redis).
      dedupe: true,
      on: async (event) => {
        if (event.event === 'document.uploaded') console.log(`document ${event.data.document_id} uploaded: ${event.data.filename}`);
        else console.log(`received ${event.event} (${event.delivery_id})`);
      },
      // Refused deliveries (bad signature, replay, oversized body…), for your logs.
      onVerificationError: (reason, request) => console.warn(`webhook refused (${reason}) from ${request.headers.get('user-agent')}`),
    }),
  ),
);
app.use(express.json()); // the rest of the app may parse JSON

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${server.address().port}/webhooks`;
  console.log(`listening on ${url}`);
  if (!process.argv.includes('--self-test')) return;
  const body = JSON.stringify({
    event: 'document.uploaded',
    version: '1.0',
    delivery_id: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    data: { room_id: 1, document_id: 7, filename: 'memo.pdf', uploader_id: 3 },
  });
  const headers = { 'content-type': 'application/json', 'x-svc-signature': await signPayload(body, secret) };
  for (const attempt of ['first', 'retry']) {
    const response = await fetch(url, { method: 'POST', body, headers });
    console.log(`${attempt}:`, response.status, await response.text());
  }
  const forged = await fetch(url, { method: 'POST', body, headers: { ...headers, 'x-svc-signature': await signPayload(body, 'not-the-secret') } });
  console.log('forged:', forged.status, await forged.text());
  server.close();
});
