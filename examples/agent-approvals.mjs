// An agent's action waits for the GP: the emulator plays the service (its agent proposes, its GP
// approves), a local receiver records every delivery into an action ledger, and the "workflow" waits
// for the decision with waitForDecision while onDecision reacts once.
// Run: npm run build && node examples/agent-approvals.mjs   (the ledger in memory; createRedisLedgerStore shares it)
import { createServer } from 'node:http';
import { Client } from 'svc-sdk';
import { createActionLedger } from 'svc-sdk/actions';
import { createEmulator } from 'svc-sdk/testing';
import { createWebhookHandler, toNodeListener } from 'svc-sdk/webhooks';

const emulator = createEmulator({ deliveryDelayMs: 0 });
const ledger = createActionLedger();
let secret = '';
const receiver = createServer(toNodeListener(createWebhookHandler({ secret: () => secret, on: (event) => ledger.record(event) })));
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve(undefined)));
const client = new Client({ apiKey: 'vdr_example', baseUrl: 'https://svc.test', fetch: emulator.fetch });
({ secret } = await client.webhooks.create({ url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (receiver.address()).port}/webhooks`, name: 'approvals', event_types: null }));

const handled = ledger.onDecision((action) => console.log(`✓ onDecision: ${action.actionId} ${action.status}, once`));

// The agent calls a write tool: the service asks the GP.
const action = await emulator.actions.propose({ kind: 'send_email', runId: 'run_1', proposal: { to: 'lp@example.com', subject: 'Q3 letter' } });
await emulator.settled();
const pending = await ledger.get(action.action_id);
console.log(`✓ ${action.action_id} is ${pending?.status}, expires about ${pending?.expiresAt?.at} (an estimate: ${pending?.expiresAt?.estimated})`);

// The workflow waits; the GP decides in the service a moment later.
const waiting = ledger.waitForDecision(action.action_id, { timeoutMs: 10_000 });
setTimeout(() => void emulator.actions.approve(action.action_id, { message_id: 'msg_42' }), 100);
const decision = await waiting;
console.log(`✓ waitForDecision: ${decision.status} ${decision.status === 'approved' ? JSON.stringify(decision.result) : ''}; credits left ${emulator.actions.balance}`);

await handled.close();
await ledger.close();
await emulator.close();
receiver.close();
