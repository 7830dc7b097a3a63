// A host that cancels a tool call (notifications/cancelled, sent by the official client when the
// caller's signal aborts) cancels the tool's call to the service too: every tool hands the
// request's signal to the svc client, in its preview, its commit and its reads.
import { describe, expect, it } from 'vitest';
import { DATA_NOTE } from '../../packages/mcp/src/untrusted.js';
import { connected, structured, text } from './support.js';

type Connected = Awaited<ReturnType<typeof connected>>;

/**
 * Replaces `owner[method]` by a call that records the signal it was given and waits for it to
 * abort; calls `name` with `args`, cancels it once the service call started, and answers whether
 * the service call's signal aborted.
 */
async function cancelled(t: Connected, owner: object, method: string, name: string, args: Record<string, unknown>): Promise<boolean> {
  const signals: (AbortSignal | undefined)[] = [];
  (owner as Record<string, unknown>)[method] = (...params: unknown[]) => {
    const signal = (params.at(-1) as { signal?: AbortSignal } | undefined)?.signal;
    signals.push(signal);
    return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error)));
  };
  const controller = new AbortController();
  const call = t.mcp.callTool({ name, arguments: args }, { signal: controller.signal }).catch((error: unknown) => error);
  await expect.poll(() => signals.length, { timeout: 5_000 }).toBe(1);
  expect(signals[0]?.aborted, `${name}: aborted before the cancel`).not.toBe(true);
  controller.abort();
  await call;
  await expect.poll(() => signals[0]?.aborted === true, { timeout: 2_000 }).toBe(true).catch(() => {});
  return signals[0]?.aborted === true;
}

/** A preview's commit token for `name` with `args`. */
async function tokenOf(t: Connected, name: string, args: Record<string, unknown>): Promise<string> {
  const preview = await t.mcp.callTool({ name, arguments: args });
  expect(preview.isError, text(preview)).toBeFalsy();
  return structured(preview).commit_token as string;
}

describe('a cancelled tool call cancels its call to the service', () => {
  it('deals: deal_create (its dry run and its create), deal_room_find, deal_transactions_list', async () => {
    const t = await connected({ allowWrites: true });
    const deal = { name: 'Acme', stage: 'sourcing', asset_class: 'equity' };
    const token = await tokenOf(t, 'deal_create', deal);
    const real = t.client.deals.create.bind(t.client.deals);
    expect(await cancelled(t, t.client.deals, 'create', 'deal_create', deal), 'deal_create preview').toBe(true);
    expect(await cancelled(t, t.client.deals, 'create', 'deal_create', { ...deal, commit_token: token }), 'deal_create commit').toBe(true);
    t.client.deals.create = real;
    const { id } = await t.client.deals.create(deal);
    expect(await cancelled(t, t.client.deals, 'linkedRoomIds', 'deal_room_find', { deal_id: id }), 'deal_room_find').toBe(true);
    expect(await cancelled(t, t.client.transactions, 'list', 'deal_transactions_list', { deal_id: id }), 'deal_transactions_list').toBe(true);
    await t.close();
  });

  it('rooms and transactions: room_create, room_ask, transaction_create, transaction_link_room (its check of the link and its update)', async () => {
    const t = await connected({ allowWrites: true });
    const { id: dealId } = await t.client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
    const { id: roomId } = await t.client.rooms.create({ name: 'Data', room_type: 'company_investment' });
    const { id: txId } = await t.client.transactions.create({ name: 'Series A', deal_id: dealId });
    const room = { name: 'R', room_type: 'company_investment' };
    expect(await cancelled(t, t.client.rooms, 'create', 'room_create', { ...room, commit_token: await tokenOf(t, 'room_create', room) }), 'room_create').toBe(true);
    expect(await cancelled(t, t.client.search, 'query', 'room_ask', { room_id: roomId, question: 'q?' }), 'room_ask').toBe(true);
    const tx = { name: 'Series B', deal_id: dealId };
    expect(await cancelled(t, t.client.transactions, 'create', 'transaction_create', { ...tx, commit_token: await tokenOf(t, 'transaction_create', tx) }), 'transaction_create').toBe(true);
    const link = { deal_id: dealId, transaction_id: txId, room_id: roomId };
    const token = await tokenOf(t, 'transaction_link_room', link);
    expect(await cancelled(t, t.client.transactions, 'update', 'transaction_link_room', { ...link, commit_token: token }), 'transaction_link_room commit').toBe(true);
    expect(await cancelled(t, t.client.transactions, 'list', 'transaction_link_room', link), 'transaction_link_room preview').toBe(true);
    await t.close();
  });
});

describe('lists of more than one, in words', () => {
  it("deal_room_find names each linked room; deal_transactions_list each transaction, a nameless one by its id alone", async () => {
    const t = await connected({ allowWrites: true });
    const { id: dealId } = await t.client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
    const rooms = [await t.client.rooms.create({ name: 'A', room_type: 'company_investment' }), await t.client.rooms.create({ name: 'B', room_type: 'company_investment' })];
    const txs = [await t.client.transactions.create({ name: 'Series A', deal_id: dealId }), await t.client.transactions.create({ name: 'Series B', deal_id: dealId })];
    for (const [index, tx] of txs.entries()) await t.client.transactions.update(tx.id, { linked_room_id: rooms[index]!.id });
    expect(text(await t.mcp.callTool({ name: 'deal_room_find', arguments: { deal_id: dealId } }))).toBe(`Deal ${dealId} is linked to room(s) ${rooms[0]!.id}, ${rooms[1]!.id}.`);
    expect(text(await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: dealId } }))).toBe(
      `2 transaction(s): ${txs[0]!.id} "Series A" → room ${rooms[0]!.id}, ${txs[1]!.id} "Series B" → room ${rooms[1]!.id}.\n${DATA_NOTE}`,
    );
    // The service's schema leaves a transaction's name optional.
    t.client.transactions.list = (async () => [{ id: 5, linked_room_id: null }]) as never;
    expect(text(await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: dealId } }))).toBe(`1 transaction(s): 5.\n${DATA_NOTE}`);
    await t.close();
  });
});
