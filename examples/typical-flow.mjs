// The spec's typical flow, end to end: deal → room → transaction → link → webhook → upload →
// signed delivery received and verified → cited search answer.
//
//   npm run demo                       against the local emulator (nothing to set up)
//   SVC_BASE_URL=… SVC_API_KEY=vdr_… SVC_WEBHOOK_URL=https://… SVC_WEBHOOK_PORT=8787 \
//     node examples/typical-flow.mjs   against a deployment; SVC_WEBHOOK_URL is the public URL of
//                                      this script's receiver (e.g. a tunnel to SVC_WEBHOOK_PORT)
import { createServer } from 'node:http';
import { Client } from 'svc-sdk';
import { createEmulator } from 'svc-sdk/testing';
import { verifyWebhook } from 'svc-sdk/webhooks';

const step = (text) => console.log(`✓ ${text}`);
const remote = Boolean(process.env.SVC_BASE_URL && process.env.SVC_API_KEY);

// 1. The service: a deployment, or the emulator on a free local port.
let emulator;
let baseUrl = process.env.SVC_BASE_URL;
let apiKey = process.env.SVC_API_KEY;
if (!remote) {
  emulator = createEmulator({ deliveryDelayMs: 200 });
  ({ url: baseUrl } = await emulator.listen(0));
  apiKey = 'vdr_demo_key';
  step(`emulator listening on ${baseUrl}`);
} else {
  step(`using the deployment at ${baseUrl}`);
}
const client = new Client({ apiKey, baseUrl });

// 2. A receiver that verifies each delivery's signature over the raw body.
let secret; // set once the webhook is registered
let onDelivery = () => {};
const receiver = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    const event = await verifyWebhook(Buffer.concat(chunks), req.headers['x-svc-signature'], secret);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    onDelivery(event);
  } catch (error) {
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.message }));
  }
});
await new Promise((resolve) => receiver.listen(Number(process.env.SVC_WEBHOOK_PORT ?? 0), '127.0.0.1', resolve));
const receiverUrl = remote ? process.env.SVC_WEBHOOK_URL : `http://127.0.0.1:${receiver.address().port}/webhooks`;
step(`receiver listening on http://127.0.0.1:${receiver.address().port}`);
if (remote && !receiverUrl) {
  console.log('! SVC_WEBHOOK_URL is not set: the service cannot reach this receiver, so no webhook is registered and no delivery awaited');
}

let webhook;
try {
  // 3. The typical flow.
  const draft = { name: 'Acme Series A', stage: 'sourcing', asset_class: 'equity' };
  const preview = await client.deals.create(draft, { ephemeral: true });
  step(`dry run validated deal "${preview.name}" (id ${preview.id}, nothing stored)`);
  const deal = await client.deals.create(draft);
  step(`created deal ${deal.id} "${deal.name}" (${deal.stage})`);
  const room = await client.rooms.create({ name: 'Acme VDR', room_type: 'company_investment' });
  step(`created room ${room.id} "${room.name}"`);
  const tx = await client.transactions.create({ name: 'Acme Series A close', deal_id: deal.id });
  step(`created transaction ${tx.id} for deal ${deal.id}`);
  await client.transactions.update(tx.id, { linked_room_id: room.id });
  step(`linked transaction ${tx.id} to room ${room.id}`);
  const roomIds = await client.deals.linkedRoomIds(deal.id);
  step(`deal ${deal.id} → rooms [${roomIds.join(', ')}] (via transactions' linked_room_id)`);

  let delivered;
  if (receiverUrl) {
    webhook = await client.webhooks.create({ url: receiverUrl, name: 'demo receiver', event_types: ['document.uploaded'] });
    secret = webhook.secret;
    step(`registered webhook ${webhook.id} for document.uploaded (its secret is shown once: kept in memory)`);
    delivered = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no verified delivery within 30 s')), 30_000);
      onDelivery = (event) => {
        if (event.event !== 'document.uploaded') return;
        clearTimeout(timer);
        resolve(event);
      };
    });
  }

  const memo = [
    'Investment memo: Acme Robotics, Series A.',
    'Acme builds warehouse picking robots and grew revenue 3x in 2025 to 12 million dollars.',
    'The round is 20 million dollars at a 90 million dollar pre-money valuation, led by us.',
    'The main risk is customer concentration: the two largest customers bring 55 percent of revenue.',
    'Closing is expected in March, subject to legal diligence.',
  ].join(' ');
  const document = await client.documents.upload(room.id, new Blob([memo], { type: 'text/plain' }), { filename: 'acme-memo.txt' });
  step(`uploaded document ${document.id} "${document.original_filename}" to room ${room.id}`);

  if (delivered) {
    const event = await delivered;
    step(`received ${event.event} (delivery ${event.delivery_id}), signature verified: document ${event.data.document_id} in room ${event.data.room_id}`);
  }

  const question = 'What is the main risk?';
  const result = await client.search.query(room.id, { query: question });
  const citation = result.citations?.[0];
  step(`asked "${question}" → ${result.answer ?? '(no answer)'}`);
  if (citation) step(`cited ${citation.filename} (document ${citation.document_id}): "${citation.passage}"`);
} finally {
  // A deployment keeps registrations: remove the demo's, so nothing keeps posting to a dead tunnel.
  if (remote && webhook) {
    await client.webhooks.delete(webhook.id).then(
      () => step(`deleted webhook ${webhook.id}`),
      (error) => console.log(`! could not delete webhook ${webhook.id}: ${error.message}`),
    );
  }
  receiver.closeAllConnections?.();
  await new Promise((resolve) => receiver.close(resolve));
  await emulator?.close();
}
console.log('Done: the typical flow ran end to end.');
