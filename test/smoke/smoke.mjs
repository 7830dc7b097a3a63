// Smoke test of the built package through its `import` entry points, as a user's ESM app loads it.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import * as sdk from 'svc-sdk';
import * as webhooks from 'svc-sdk/webhooks';
import * as testing from 'svc-sdk/testing';
import * as otel from 'svc-sdk/otel';
import * as inbox from 'svc-sdk/inbox';
import * as mcp from '@svc-sdk/mcp';
import * as actions from 'svc-sdk/actions';

assert.equal(typeof sdk.Client, 'function', 'svc-sdk exports Client');
assert.ok(new sdk.NotFoundError({ status: 404, body: null, headers: new Headers(), method: 'GET', url: 'x' }) instanceof sdk.SvcError);
assert.equal(typeof testing.createEmulator, 'function', 'svc-sdk/testing exports createEmulator');
assert.deepEqual(Object.keys(otel.clientTelemetry()).sort(), ['afterResponse', 'beforeRequest', 'beforeRetry', 'onError'], 'svc-sdk/otel makes client hooks');
assert.deepEqual(Object.keys(otel.webhookTelemetry()).sort(), ['onOutcome', 'onReceive'], 'svc-sdk/otel makes receiver hooks');
assert.deepEqual(Object.keys(inbox).sort(), ['bullmqInbox', 'cloudflareQueueInbox', 'createInboxDashboard', 'processQueueBatch', 'serveInboxDashboard'], 'svc-sdk/inbox exports its inboxes and the dashboard');
assert.equal(typeof mcp.createMcpServer, 'function', '@svc-sdk/mcp exports createMcpServer');
assert.deepEqual(Object.keys(actions).sort(), ['DEFAULT_WINDOW_MS', 'createActionLedger', 'createMemoryLedgerStore', 'createRedisLedgerStore'], 'svc-sdk/actions exports the ledger and its stores');
// One class per error across entries, so `instanceof` holds whichever entry a user imported it from.
assert.equal(sdk.WebhookVerificationError, webhooks.WebhookVerificationError);
const signature = await webhooks.signPayload('{"a":1}', 'whsec_smoke');
assert.equal(await sdk.verifySignature('{"a":1}', signature, 'whsec_smoke'), true);
assert.equal(await webhooks.verifySignature('{"a":2}', signature, 'whsec_smoke'), false);

// One real call over HTTP, so the built core (ky, zod, error mapping) is exercised end to end.
const server = createServer((request, response) => {
  response.setHeader('content-type', 'application/json');
  if (request.url === '/api/v1/rooms') response.end(JSON.stringify({ success: true, data: { id: 7, name: 'VDR' } }));
  else {
    response.statusCode = 404;
    response.end(JSON.stringify({ error: "not found" }));
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const client = new sdk.Client({ apiKey: 'vdr_smoke', baseUrl: `http://127.0.0.1:${server.address().port}`, maxRetries: 0 });
try {
  assert.deepEqual(await client.rooms.create({ name: 'VDR', room_type: 'company_investment' }), { id: 7, name: 'VDR' });
  await assert.rejects(client.transactions.list({ deal_id: 1 }), sdk.NotFoundError);
} finally {
  server.close();
}
console.log('smoke (import): ok');
