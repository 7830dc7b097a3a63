// Receive signed webhooks in Express: verify the raw bytes, then act on the typed event.
//   SVC_WEBHOOK_SECRET=whsec_... node examples/express-receiver.mjs
// `--self-test` sends one signed delivery to the server and exits (needs no secret).
import express from 'express';
import { signPayload, verifyWebhook, WebhookPayloadError, WebhookVerificationError } from 'svc-sdk/webhooks';

const secret = process.env.SVC_WEBHOOK_SECRET ?? 'whsec_example_secret';
const app = express();

// express.raw keeps the body as the exact bytes received (a Buffer). express.json() would parse and
// re-serialize it, and the signature, computed over the original bytes, would no longer match.
app.post('/webhooks', express.raw({ type: 'application/json' }), async (req, res) => {
  let event;
  try {
    event = await verifyWebhook(req.body, req.get('x-svc-signature'), secret);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return res.status(401).json({ error: error.message });
    if (error instanceof WebhookPayloadError) return res.status(400).json({ error: error.message });
    throw error;
  }
  if (event.event === 'document.uploaded') console.log(`document ${event.data.document_id} uploaded: ${event.data.filename}`);
  else console.log(`received ${event.event} (${event.delivery_id})`);
  res.json({ received: true });
});

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
  const response = await fetch(url, { method: 'POST', body, headers });
  console.log(response.status, await response.text());
  server.close();
});
