import { describe, expect, it } from 'vitest';
import { RESULT_BUDGET_CHARS, withinBudget } from '../../packages/mcp/src/budget.js';
import { accessOf, assertKnownOperations, mayDestroy } from '../../packages/mcp/src/operation-facts.js';
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

describe('operation facts (the adapter the operation table replaces)', () => {
  it('a tool naming an operation that does not exist, or none, is refused when the server is made', () => {
    expect(() => assertKnownOperations('deal_merge', ['deals.merge'])).toThrow('[svc-sdk] MCP tool deal_merge names the unknown operation deals.merge');
    expect(() => assertKnownOperations('deal_noop', [])).toThrow(/names no operation/);
    expect(() => assertKnownOperations('deal_create', ['deals.preview', 'deals.create'])).not.toThrow();
  });

  it('access is the strongest of the operations; an unknown one counts as destroying', () => {
    expect(accessOf(['search.query'])).toBe('read');
    expect(accessOf(['webhooks.retrieve', 'webhooks.ping'])).toBe('write');
    expect(accessOf(['webhooks.retrieve', 'webhooks.delete'])).toBe('destroy');
    expect(accessOf(['deals.unknown'])).toBe('destroy');
    expect(mayDestroy(['transactions.update'])).toBe(true);
    expect(mayDestroy(['transactions.create'])).toBe(false);
  });
});
