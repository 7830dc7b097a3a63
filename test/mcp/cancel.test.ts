// A host that cancels a tool call (notifications/cancelled, sent by the official client when the
// caller's signal aborts) cancels the tool's call to the service too: every tool hands the
// request's signal to the svc client, in its preview, its commit and its reads.
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
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

  it('webhooks: webhook_list, the endpoint each preview shows, and the ping, create, delete and rotation commits', async () => {
    const t = await connected({ allowWrites: true, allowDestructive: true });
    const hook = { url: 'http://127.0.0.1:9/hook', name: 'hook', event_types: [] };
    const { id } = await t.client.webhooks.create({ ...hook, event_types: null });
    const tokens = {
      create: await tokenOf(t, 'webhook_create', hook),
      ping: await tokenOf(t, 'webhook_ping', { webhook_id: id }),
      rotate: await tokenOf(t, 'webhook_rotate_secret', { webhook_id: id }),
      delete: await tokenOf(t, 'webhook_delete', { webhook_id: id }),
    };
    expect(await cancelled(t, t.client.webhooks, 'list', 'webhook_list', {}), 'webhook_list').toBe(true);
    expect(await cancelled(t, t.client.webhooks, 'retrieve', 'webhook_ping', { webhook_id: id }), 'webhook_ping preview').toBe(true);
    expect(await cancelled(t, t.client.webhooks, 'ping', 'webhook_ping', { webhook_id: id, commit_token: tokens.ping }), 'webhook_ping commit').toBe(true);
    expect(await cancelled(t, t.client.webhooks, 'create', 'webhook_create', { ...hook, commit_token: tokens.create }), 'webhook_create commit').toBe(true);
    expect(await cancelled(t, t.client.webhooks, 'rotateSecret', 'webhook_rotate_secret', { webhook_id: id, commit_token: tokens.rotate }), 'webhook_rotate_secret commit').toBe(true);
    expect(await cancelled(t, t.client.webhooks, 'delete', 'webhook_delete', { webhook_id: id, commit_token: tokens.delete }), 'webhook_delete commit').toBe(true);
    await t.close();
  });
});

describe('webhook secrets', () => {
  it("a rotation's secret file is named for its webhook; a rotation the service refuses leaves no file behind", async () => {
    const t = await connected({ allowWrites: true, allowDestructive: true });
    const { id } = await t.client.webhooks.create({ url: 'http://127.0.0.1:9/hook', name: 'hook', event_types: null });
    const rotated = structured(await t.mcp.callTool({ name: 'webhook_rotate_secret', arguments: { webhook_id: id, commit_token: await tokenOf(t, 'webhook_rotate_secret', { webhook_id: id }) } }));
    expect(basename(rotated.result.secret_file as string)).toMatch(new RegExp(`^webhook-${id}-[^/]+\\.secret$`));
    const token = await tokenOf(t, 'webhook_rotate_secret', { webhook_id: id });
    // Gone between the preview and the commit: the service answers 404 to the rotation.
    await t.client.webhooks.delete(id);
    const refused = await t.mcp.callTool({ name: 'webhook_rotate_secret', arguments: { webhook_id: id, commit_token: token } });
    expect(refused.isError, text(refused)).toBe(true);
    expect(readdirSync(join(t.stateDir, 'webhook-secrets'))).toEqual([basename(rotated.result.secret_file as string)]);
    await t.close();
  });
});

describe('lists of more than one, in words', () => {
  it('webhook_list names each endpoint, one without a name or URL by its id alone, and says when there are more', async () => {
    const t = await connected();
    t.client.webhooks.list = (async () => [{ id: 1 }, { id: 2, name: 'b', url: 'http://127.0.0.1:9/b' }]) as never;
    expect(text(await t.mcp.callTool({ name: 'webhook_list', arguments: {} }))).toBe(`2 endpoint(s): 1, 2 "b" "http://127.0.0.1:9/b".\n${DATA_NOTE}`);
    expect(text(await t.mcp.callTool({ name: 'webhook_list', arguments: { limit: 1 } }))).toBe(`1 endpoint(s): 1 (more: pass next_cursor).\n${DATA_NOTE}`);
    await t.close();
  });

  it("deal_room_find names each linked room; deal_transactions_list each transaction, a nameless one by its id alone", async () => {
    const t = await connected({ allowWrites: true });
    const { id: dealId } = await t.client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
    const rooms = [await t.client.rooms.create({ name: 'A', room_type: 'company_investment' }), await t.client.rooms.create({ name: 'B', room_type: 'company_investment' })];
    const txs = [await t.client.transactions.create({ name: 'Series A', deal_id: dealId }), await t.client.transactions.create({ name: 'Series B', deal_id: dealId })];
    for (const [index, tx] of txs.entries()) await t.client.transactions.update(tx.id, { linked_room_id: rooms[index]!.id });
    const found = await t.mcp.callTool({ name: 'deal_room_find', arguments: { deal_id: dealId } });
    expect(text(found)).toBe(`Deal ${dealId} is linked to room(s) ${rooms[0]!.id}, ${rooms[1]!.id}.`);
    // Room ids only, no counterparty text: no untrusted list in _meta (and no data note above).
    expect(found._meta).toBeUndefined();
    expect(text(await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: dealId } }))).toBe(
      `2 transaction(s): ${txs[0]!.id} "Series A" → room ${rooms[0]!.id}, ${txs[1]!.id} "Series B" → room ${rooms[1]!.id}.\n${DATA_NOTE}`,
    );
    // The service's schema leaves a transaction's name optional.
    t.client.transactions.list = (async () => [{ id: 5, linked_room_id: null }]) as never;
    expect(text(await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: dealId } }))).toBe(`1 transaction(s): 5.\n${DATA_NOTE}`);
    await t.close();
  });
});
