// The action ledger's MCP tools: listed only when the server is given a ledger, read-only (the
// interface has no operation that decides, and a model must not approve), over the official client.
import { describe, expect, it } from 'vitest';
import { createActionLedger } from '../../src/actions/index.js';
import { approved, proposed } from '../actions/events.js';
import { connected, structured, text } from './support.js';

describe('createMcpServer({ actions: ledger })', () => {
  it('lists action_pending_list and action_wait, read-only and idempotent, and no tool that decides; none without a ledger', async () => {
    const t = await connected({ actions: createActionLedger(), allowWrites: true, allowDestructive: true });
    const { tools } = await t.mcp.listTools();
    const ledgerTools = tools.filter((tool) => tool.name.startsWith('action_'));
    expect(ledgerTools.map((tool) => tool.name)).toEqual(['action_pending_list', 'action_wait']);
    for (const tool of ledgerTools) expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(tools.map((tool) => tool.name).filter((name) => /approve|reject|decide/.test(name))).toEqual([]);
    await t.close();
    const without = await connected({});
    expect((await without.mcp.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('action_'))).toEqual([]);
    await without.close();
    await expect(connected({ tools: ['action_wait'] })).rejects.toThrow(/action_wait reads an action ledger: pass actions/);
    // With a ledger, `tools` and `excludeTools` choose among its tools as among the others.
    const chosen = await connected({ actions: createActionLedger(), tools: ['webhook_list', 'action_wait'] });
    expect((await chosen.mcp.listTools()).tools.map((tool) => tool.name)).toEqual(['webhook_list', 'action_wait']);
    await chosen.close();
    const excluded = await connected({ actions: createActionLedger(), excludeTools: ['action_wait'] });
    expect((await excluded.mcp.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('action_'))).toEqual(['action_pending_list']);
    await excluded.close();
  });

  it('action_pending_list lists what waits for the GP, filtered by kind; action_wait resolves with the decision once recorded', async () => {
    const ledger = createActionLedger();
    await ledger.record(proposed('act_1', { kind: 'send_email' }));
    await ledger.record(proposed('act_2', { kind: 'capital_call' }));
    const t = await connected({ actions: ledger });
    const all = await t.mcp.callTool({ name: 'action_pending_list', arguments: {} });
    expect(structured(all).actions.map((action: { actionId: string }) => action.actionId)).toEqual(['act_1', 'act_2']);
    expect(text(all)).toBe('2 pending action(s): act_1 (send_email), act_2 (capital_call).');
    const calls = await t.mcp.callTool({ name: 'action_pending_list', arguments: { kind: 'capital_call' } });
    expect(structured(calls).actions).toMatchObject([{ actionId: 'act_2', status: 'pending', expiresAt: { estimated: true } }]);

    const waiting = t.mcp.callTool({ name: 'action_wait', arguments: { action_id: 'act_1', timeout_seconds: 10 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await ledger.record(approved('act_1'));
    const decided = await waiting;
    expect(structured(decided)).toEqual({ action_id: 'act_1', status: 'approved', decision: { status: 'approved', result: { sent: true } } });
    expect(structured(await t.mcp.callTool({ name: 'action_wait', arguments: { action_id: 'act_2', timeout_seconds: 0.05 } }))).toEqual({ action_id: 'act_2', status: 'timeout' });
    expect((await t.mcp.callTool({ name: 'action_wait', arguments: { action_id: 'act_2', timeout_seconds: 301 } })).isError).toBe(true);
    await t.close();
  });

  it('action_pending_list filters by run and by minutes to the estimated expiry; action_wait says what it found, in words', async () => {
    const ledger = createActionLedger();
    // Proposed now: each expires in 24 h (the default window), 1 440 minutes from now.
    const now = new Date().toISOString();
    await ledger.record(proposed('act_a', { runId: 'run-a', timestamp: now }));
    await ledger.record(proposed('act_b', { runId: 'run-b', timestamp: now }));
    const t = await connected({ actions: ledger });
    const ids = async (args: Record<string, unknown>) => structured(await t.mcp.callTool({ name: 'action_pending_list', arguments: args })).actions.map((action: { actionId: string }) => action.actionId);
    expect(await ids({ run_id: 'run-b' })).toEqual(['act_b']);
    expect(await ids({ expiring_within_minutes: 1441 })).toEqual(['act_a', 'act_b']);
    expect(await ids({ expiring_within_minutes: 1380 })).toEqual([]);
    expect(text(await t.mcp.callTool({ name: 'action_pending_list', arguments: { kind: 'capital_call' } }))).toBe('0 pending action(s).');
    expect(text(await t.mcp.callTool({ name: 'action_pending_list', arguments: { limit: 1 } }))).toBe('1 pending action(s): act_a (send_email) (more: pass next_cursor).');
    await ledger.record(approved('act_a', { runId: 'run-a' }));
    expect(text(await t.mcp.callTool({ name: 'action_wait', arguments: { action_id: 'act_a', timeout_seconds: 10 } }))).toBe('Action act_a: approved.');
    expect(text(await t.mcp.callTool({ name: 'action_wait', arguments: { action_id: 'act_b', timeout_seconds: 0.05 } }))).toBe('No decision on act_b yet (still pending).');
    await t.close();
  });
});
