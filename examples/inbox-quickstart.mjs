// The inbox end to end on one machine: the emulator as the service, a receiver storing each verified
// delivery in Redis, and a worker running `on` for it; SIGTERM (or Ctrl+C) ends it cleanly.
// `npx @svc-sdk/cli inbox demo` runs the same from any folder; this file is it in your code.
//   redis-server --appendonly yes --daemonize yes
//   npx --yes -p svc-sdk -p bullmq -p ioredis -p msw -p minisearch node examples/inbox-quickstart.mjs
// Env: SVC_INBOX_REDIS (default redis://127.0.0.1:6379), PORT (default 0: a free port),
// DELIVERIES (default 5; 0 keeps serving until stopped).
import { createServer } from 'node:http';
import { Client } from 'svc-sdk';
import { bullmqInbox } from 'svc-sdk/inbox';
import { createEmulator } from 'svc-sdk/testing';
import { createWebhookHandler, toNodeListener } from 'svc-sdk/webhooks';

const redisUrl = process.env.SVC_INBOX_REDIS ?? 'redis://127.0.0.1:6379';
const deliveries = Number(process.env.DELIVERIES ?? 5);
const inbox = bullmqInbox({ connection: { url: redisUrl }, queue: 'svc-webhooks-quickstart' });

// The service: the emulator, with a webhook subscription pointing at the receiver below.
const emulator = createEmulator({ deliveryDelayMs: 0 });
const client = new Client({ apiKey: 'vdr_quickstart', baseUrl: 'https://svc.test', fetch: emulator.fetch });

// The receiver: answers 2xx only once the verified delivery is in Redis.
let secret = '';
const server = createServer(toNodeListener(createWebhookHandler({ secret: () => secret, inbox })));
await new Promise((resolve) => server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/webhooks`;
({ secret } = await client.webhooks.create({ url, name: 'inbox quick start', event_types: ['document.uploaded'] }));

// The worker: runs `on` for each stored delivery, with retries and dead letters.
let processed = 0;
const worker = inbox.process(async (event) => {
  if (event.event === 'document.uploaded') console.log(`processed ${event.delivery_id}: ${event.data.filename}`);
  processed++;
});
await worker.ready();

/** Stops taking deliveries, lets the running ones finish (closeGraceMs at most), and closes every connection. */
async function stop() {
  server.close();
  server.closeIdleConnections();
  await worker.close();
  await inbox.close();
  await emulator.close();
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
console.log(`receiver on ${url}, worker running, Redis ${redisUrl.replace(/\/\/[^@/]*@/, '//')}`);

for (let n = 1; n <= deliveries; n++) await emulator.trigger('document.uploaded', { room_id: 1, document_id: n, filename: `memo-${n}.pdf`, uploader_id: 1 });
if (deliveries > 0) {
  while (processed < deliveries) await new Promise((resolve) => setTimeout(resolve, 50));
  console.log(`${processed} deliveries processed through the inbox`);
  await stop();
}
