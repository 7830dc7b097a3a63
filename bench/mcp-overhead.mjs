// What a tool call of `@svc-sdk/mcp` costs over the plain SDK call it makes (issue 33), in process:
// the emulator answers through its fetch handler (no network), the MCP server is reached over the
// SDK's in-memory transport by a minimal JSON-RPC client written here (so no client library's cost
// is counted), and each tool call is timed against the very Client call the tool makes, in the
// same interleaved rounds, in CPU time. What the difference holds: JSON-RPC framing both ways,
// argument validation, the tool's code (paging, the result budget, the text rendering), output
// validation, and for a write's preview the commit token's HMAC.
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'svc-sdk';
import { createMcpServer } from '@svc-sdk/mcp';
import { createEmulator } from 'svc-sdk/testing';
import { cpuClock, fixed, interleave, table, times } from './lib/stats.mjs';

const API_KEY = 'vdr_bench_key';
const DEAL = { name: 'Acme', stage: 'sourcing', asset_class: 'equity' };

export async function benchMcpOverhead({ quick = false } = {}) {
  const emulator = createEmulator({ apiKey: API_KEY, deliveryDelayMs: 3_600_000 });
  const client = new Client({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1', fetch: emulator.fetch, maxRetries: 0 });
  const deal = await client.deals.create(DEAL);
  for (let index = 0; index < 10; index++) await client.transactions.create({ name: `Tx ${index}`, deal_id: deal.id });
  const room = await client.rooms.create({ name: 'Bench room', room_type: 'company_investment' });
  await client.documents.upload(room.id, new Blob(['The lead investor is Northwind Capital.\n\nThe valuation is 40 million.']), { filename: 'terms.txt' });

  // A state folder of its own: the commit key and the spent-token markers are files there.
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
  const server = createMcpServer({ client, allowWrites: true, stateDir });
  const call = await jsonRpcClient(server);
  const pairs = [
    ['transactions.list (10 items)', () => client.transactions.list({ deal_id: deal.id }), () => call('deal_transactions_list', { deal_id: deal.id })],
    ['search.query', () => client.search.query(room.id, { query: 'Who is the lead investor?' }), () => call('room_ask', { room_id: room.id, question: 'Who is the lead investor?' })],
    ['deals.create dry run (a write preview)', () => client.deals.create(DEAL, { ephemeral: true }), () => call('deal_create', DEAL)],
    [
      'dry run + create (a preview and its commit: token minted, checked, spent in the state folder)',
      async () => (await client.deals.create(DEAL, { ephemeral: true }), await client.deals.create(DEAL)),
      async () => call('deal_create', { ...DEAL, commit_token: (await call('deal_create', DEAL)).structuredContent.commit_token }),
    ],
  ];
  const results = [];
  for (const [name, plain, tool] of pairs) {
    const cases = [
      { name: 'sdk', run: async (operations) => { for (let index = 0; index < operations; index++) await plain(); } },
      { name: 'mcp', run: async (operations) => { for (let index = 0; index < operations; index++) await tool(); } },
    ];
    for (const { run } of cases) await run(300); // warm the JIT
    const measured = await interleave(cases, { rounds: quick ? 15 : 80, operations: 100, baseline: 'sdk', clock: cpuClock });
    const sdk = measured.get('sdk');
    const mcp = measured.get('mcp');
    results.push({ name, sdkMicros: sdk.micros, mcpMicros: mcp.micros, added: mcp.micros - sdk.micros, ratio: mcp.ratio });
  }
  await server.close();
  emulator.close();
  rmSync(stateDir, { recursive: true, force: true });
  return results;
}

/** A minimal MCP client over the in-memory transport: initialize, then `call(tool, args)` → the result (throws on a tool error). */
async function jsonRpcClient(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const pending = new Map();
  let nextId = 0;
  clientSide.onmessage = (message) => {
    const settle = pending.get(message.id);
    if (!settle) return;
    pending.delete(message.id);
    settle(message);
  };
  await clientSide.start();
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      void clientSide.send({ jsonrpc: '2.0', id, method, params });
    });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } });
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return async (name, args) => {
    const { result, error } = await request('tools/call', { name, arguments: args });
    if (error || result.isError) throw new Error(`bench: ${name} failed: ${JSON.stringify(error ?? result.content)}`);
    return result;
  };
}

export function summarizeMcpOverhead(results) {
  return results.map(({ name, added, ratio }) => [`MCP tool call over the plain SDK call: ${name}`, '—', `+${fixed(added, 0)} µs CPU (${times(ratio)})`, '—', '—']);
}

export function renderMcpOverhead(results) {
  return table(
    ['SDK call (the tool that makes it)', 'SDK: CPU µs / call', 'tool call: CPU µs / call', 'added by MCP (µs)', 'ratio (median within rounds)'],
    results.map(({ name, sdkMicros, mcpMicros, added, ratio }) => [name, fixed(sdkMicros, 0), fixed(mcpMicros, 0), fixed(added, 0), times(ratio)]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderMcpOverhead(await benchMcpOverhead({ quick: process.argv.includes('--quick') })));
}
