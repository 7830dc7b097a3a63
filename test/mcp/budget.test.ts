import { describe, expect, it } from 'vitest';
import { RESULT_BUDGET_CHARS, withinBudget } from '../../packages/mcp/src/budget.js';
import { operations } from 'svc-sdk/internal';
import { accessOf, assertKnownOperations, checkParams, mayDestroy, ToolRefusal, type AnyTool } from '../../packages/mcp/src/tool.js';
import { TOOLS } from '../../packages/mcp/src/tools/index.js';
import { connected, structured } from './support.js';

describe('a result over the budget is cut, with a hint', () => {
  it('withinBudget drops items from the end of the longest list until the JSON fits, and says how many', () => {
    const result = { deal_id: 1, transactions: Array.from({ length: 100 }, (_, id) => ({ id, name: 'x'.repeat(300) })), tags: ['a'] };
    const cut = withinBudget(result, 5000);
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(5000);
    expect(cut.transactions.length).toBeGreaterThan(0);
    expect(cut.transactions).toEqual(result.transactions.slice(0, cut.transactions.length));
    expect((cut as { hint?: string }).hint).toBe(`${100 - cut.transactions.length} item(s) of transactions left out to keep the result short: ask for a smaller page (limit) or a narrower question`);
    expect(withinBudget({ small: [1] }, 5000)).toEqual({ small: [1] });
  });

  it('a result exactly at the budget is kept whole; the longest list is the one cut, even when another comes first', () => {
    const exact = { items: ['x'.repeat(20)] };
    const size = JSON.stringify(exact).length;
    expect(withinBudget(exact, size)).toBe(exact);
    const cut = withinBudget(exact, size - 1);
    expect(cut).toEqual({ items: [], hint: '1 item(s) of items left out to keep the result short: ask for a smaller page (limit) or a narrower question' });
    const two = { short: [1, 2, 3], long: Array.from({ length: 20 }, () => 'y'.repeat(50)) };
    const trimmed = withinBudget(two, 600);
    expect(trimmed.short).toEqual([1, 2, 3]);
    expect(trimmed.long.length).toBeLessThan(20);
    expect(JSON.stringify(trimmed).length).toBeLessThanOrEqual(600);
  });

  it('stops dropping as soon as the cut result is exactly the budget', () => {
    const result = { items: ['a'.repeat(200), 'b'.repeat(200), 'c'.repeat(200)] };
    const twoLeft = { items: result.items.slice(0, 2), hint: '1 item(s) of items left out to keep the result short: ask for a smaller page (limit) or a narrower question' };
    expect(withinBudget(result, JSON.stringify(twoLeft).length)).toEqual(twoLeft);
  });

  it('a ToolRefusal names itself (what a log or stack shows of it)', () => {
    const refusal = new ToolRefusal('paths: nothing to upload');
    expect(refusal).toBeInstanceOf(Error);
    expect(String(refusal)).toBe('ToolRefusal: paths: nothing to upload');
  });

  it('stops at an empty list when even that is over the budget, and leaves a result without lists as it is', () => {
    const big = { text: 'z'.repeat(1000), items: [1, 2, 3] };
    expect(withinBudget(big, 100)).toMatchObject({ text: big.text, items: [], hint: expect.stringContaining('3 item(s) of items') });
    const noList = { text: 'z'.repeat(1000) };
    expect(withinBudget(noList, 100)).toBe(noList);
  });

  it('deal_transactions_list of 50 long-named transactions comes back within the budget, with the hint', async () => {
    const t = await connected();
    const deal = await t.client.deals.create({ name: 'D', stage: 'sourcing', asset_class: 'equity' });
    for (let index = 0; index < 50; index++) await t.client.transactions.create({ name: `${index} ${'n'.repeat(500)}`, deal_id: deal.id });
    const result = await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: deal.id, limit: 50 } });
    expect(JSON.stringify(structured(result)).length).toBeLessThanOrEqual(RESULT_BUDGET_CHARS);
    expect(structured(result).transactions.length).toBeLessThan(50);
    expect(structured(result).hint).toMatch(/left out to keep the result short/);
    await t.close();
  });
});

describe('operation effects: the table is the one source of how a tool is gated', () => {
  const dealCreate = TOOLS.find((tool) => tool.name === 'deal_create')!;
  /** deal_create as if it called `names` (entries of the table). */
  const calling = (...names: (keyof typeof operations)[]): AnyTool => ({ ...dealCreate, operations: names.map((name) => operations[name]) });

  it('a tool naming no operation, or an object that is not an entry of the table, is refused when the server is made', () => {
    const lookAlike = { ...operations['deals.create'], name: 'deals.merge', effect: 'read' as const };
    expect(() => assertKnownOperations({ ...dealCreate, name: 'deal_merge', operations: [lookAlike] })).toThrow('[svc-sdk] MCP tool deal_merge names the unknown operation deals.merge');
    expect(() => assertKnownOperations({ ...dealCreate, name: 'deal_noop', operations: [] })).toThrow(/\[svc-sdk\] MCP tool deal_noop names no operation/);
    for (const tool of TOOLS.filter((candidate) => candidate.needs !== 'actions')) expect(() => assertKnownOperations(tool), tool.name).not.toThrow();
  });

  it("checkParams refuses by the SDK's own rules, every message joined, and passes what an entry without params takes", () => {
    // Through the protocol a tool's arguments are the same field schemas, checked first: here each rule is seen alone.
    const check = () => checkParams(operations['webhooks.create'], { url: 'http://example.com/hook', name: '', event_types: null });
    expect(check).toThrow(ToolRefusal);
    expect(check).toThrow(/^url must be an https:\/\/ URL of your receiver, .*; name must not be empty: .*: nothing was previewed$/);
    expect(() => checkParams(operations['webhooks.create'], { url: 'https://example.com/hook', name: 'n', event_types: null })).not.toThrow();
    expect(() => checkParams(operations['webhooks.ping'], { anything: true })).not.toThrow();
  });

  it('access is the strongest effect; a replace is listed with the writes and hinted destructive', () => {
    expect(accessOf(calling('search.query'))).toBe('read');
    expect(accessOf(calling('webhooks.retrieve', 'webhooks.ping'))).toBe('write');
    expect(accessOf(calling('webhooks.retrieve', 'webhooks.delete'))).toBe('destroy');
    expect(accessOf(calling('webhooks.delete', 'webhooks.retrieve'))).toBe('destroy');
    expect(accessOf(calling('transactions.list', 'transactions.update'))).toBe('write');
    expect(mayDestroy(calling('transactions.list', 'transactions.update'))).toBe(true);
    expect(mayDestroy(calling('webhooks.rotateSecret'))).toBe(true);
    expect(mayDestroy(calling('transactions.create', 'transactions.list'))).toBe(false);
  });
});
