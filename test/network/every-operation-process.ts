// A Node process (22, 24 or 26) that calls every operation of the table through the proxy in
// PROXY_URL, trusting the origin's certificate through `ca` (ORIGIN_CA): bundled from the sources by
// every-operation.test.ts. It prints what it saw as JSON; a failing call fails the process, naming it.
import { readFileSync } from 'node:fs';
import { Client } from '../../src/index.node.js';
import type { operations } from '../../src/operations.js';

const client = new Client({
  apiKey: 'vdr_every_operation',
  baseUrl: process.env.BASE_URL,
  proxy: process.env.PROXY_URL || undefined,
  ca: readFileSync(process.env.ORIGIN_CA!, 'utf8'),
  maxRetries: 0,
});
const UPLOAD_BYTES = Number(process.env.UPLOAD_BYTES);
const called: string[] = [];

async function call<T>(name: keyof typeof operations, run: () => Promise<T>): Promise<T> {
  try {
    const result = await run();
    called.push(name);
    return result;
  } catch (error) {
    console.error(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

/** An upload generated as it is sent, never held whole: chunks of 64 KiB, byte i being i % 251. */
function generated(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const chunk = new Uint8Array(Math.min(65_536, total - sent));
      for (let i = 0; i < chunk.length; i++) chunk[i] = (sent + i) % 251;
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

const deal = await call('deals.create', () => client.deals.create({ name: 'Through a proxy', stage: 'sourcing', asset_class: 'equity' }));
const room = await call('rooms.create', () => client.rooms.create({ name: 'Proxied room', room_type: 'company_investment' }));
const transaction = await call('transactions.create', () => client.transactions.create({ name: 'T', deal_id: deal.id }));
await call('transactions.update', () => client.transactions.update(transaction.id, { linked_room_id: room.id }));
await call('transactions.list', () => client.transactions.list({ deal_id: deal.id }));
const document = await call('documents.upload', () => client.documents.upload(room.id, generated(UPLOAD_BYTES), { filename: 'generated.bin' }));
await call('search.query', () => client.search.query(room.id, { query: 'covenant?' }));
const hooks = [];
for (let n = 1; n <= 5; n++) hooks.push(await call('webhooks.create', () => client.webhooks.create({ url: `https://hooks.example.com/${n}`, name: `hook ${n}`, event_types: null })));
// The emulator answers pages of 2: the 5 webhooks are 3 pages, each fetched through the proxy.
const listed = await call('webhooks.list', async () => {
  const all = [];
  for await (const hook of client.webhooks.list()) all.push(hook.id);
  return all;
});
const hook = hooks[0]!;
await call('webhooks.retrieve', () => client.webhooks.retrieve(hook.id));
await call('webhooks.update', () => client.webhooks.update(hook.id, { name: 'renamed' }));
await call('webhooks.rotateSecret', () => client.webhooks.rotateSecret(hook.id));
await call('webhooks.ping', () => client.webhooks.ping(hook.id));
await call('webhooks.delete', () => client.webhooks.delete(hook.id));
console.log(JSON.stringify({ node: process.version, called: [...new Set(called)], listed: listed.length, uploaded: (document as { size?: number }).size }));
