// Smoke test of the built package through its `require` entry points, as a user's CommonJS app loads it.
const assert = require('node:assert/strict');
const sdk = require('svc-sdk');
const webhooks = require('svc-sdk/webhooks');
const testing = require('svc-sdk/testing');
const otel = require('svc-sdk/otel');
const inbox = require('svc-sdk/inbox');
const mcp = require('@svc-sdk/mcp');
const actions = require('svc-sdk/actions');

assert.equal(typeof sdk.Client, 'function', 'svc-sdk exports Client');
assert.throws(() => new sdk.Client({ apiKey: 'nope', baseUrl: 'https://x.test' }), sdk.ValidationError);
assert.equal(typeof testing.createEmulator, 'function', 'svc-sdk/testing exports createEmulator');
assert.equal(sdk.WebhookVerificationError, webhooks.WebhookVerificationError);
assert.equal(typeof otel.clientTelemetry().beforeRequest, 'function', 'svc-sdk/otel makes client hooks');
assert.equal(typeof inbox.bullmqInbox, 'function', 'svc-sdk/inbox exports bullmqInbox');
assert.equal(typeof mcp.createMcpServer, 'function', '@svc-sdk/mcp exports createMcpServer');
assert.equal(typeof actions.createActionLedger, 'function', 'svc-sdk/actions exports createActionLedger');
const client = new sdk.Client({ apiKey: 'vdr_smoke', baseUrl: 'https://x.test' });
assert.equal(client.baseUrl, 'https://x.test');
console.log('smoke (require): ok');
