// What the model reads: every tool's text rendering, the preview's wording (what would change, the
// next step naming what the commit does) and the commit's answer, at the MCP protocol. A host that
// passes the model only text relies on these words alone.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_NOTE } from '../../packages/mcp/src/untrusted.js';
import { connected, structured, tempDir, text } from './support.js';

type Connected = Awaited<ReturnType<typeof connected>>;

/** The preview (its structured content and text), then the commit's result and text. */
async function previewThenCommit(t: Connected, name: string, args: Record<string, unknown>) {
  const preview = await t.mcp.callTool({ name, arguments: args });
  expect(preview.isError, text(preview)).toBeFalsy();
  const shown = structured(preview);
  const commit = await t.mcp.callTool({ name, arguments: { ...args, commit_token: shown.commit_token } });
  expect(commit.isError, text(commit)).toBeFalsy();
  return { shown, previewText: text(preview), result: structured(commit).result, text: text(commit) };
}

/** The next step a preview names: what its commit does, in the tool's own words. */
const nextStep = (shown: Record<string, unknown>, name: string, does: string) =>
  `To ${does}, show this preview to the user, then call ${name} again with the same arguments and commit_token (valid until ${String(shown['expires_at'])}, once).`;

describe('the words a model reads', () => {
  it('deals, rooms, transactions and links: each preview says what would change and what the commit does; each commit and read says what happened', async () => {
    const t = await connected({ allowWrites: true });
    const deal = await previewThenCommit(t, 'deal_create', { name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
    expect(deal.shown.next_step).toBe(nextStep(deal.shown, 'deal_create', 'create the deal "Acme" (stage sourcing, asset class equity)'));
    expect(deal.previewText).toBe(`Preview, nothing changed yet. ${deal.shown.next_step}\ncommit_token: ${deal.shown.commit_token}\npreview: ${JSON.stringify(deal.shown.preview)}\n${DATA_NOTE}`);
    const dealId = deal.result.deal.id as number;
    expect(deal.text).toBe(`Created deal ${dealId}.\n${DATA_NOTE}`);

    const room = await previewThenCommit(t, 'room_create', { name: 'Data', room_type: 'company_investment' });
    expect(room.shown.preview).toEqual({ operation: 'rooms.create', would_send: { name: 'Data', room_type: 'company_investment' }, would_change: 'a new room "Data" of type company_investment' });
    expect(room.shown.next_step).toBe(nextStep(room.shown, 'room_create', 'create the data room "Data" (company_investment)'));
    const roomId = room.result.room.id as number;
    expect(room.text).toBe(`Created room ${roomId}.\n${DATA_NOTE}`);

    const tx = await previewThenCommit(t, 'transaction_create', { name: 'Series A', deal_id: dealId });
    expect(tx.shown.preview).toEqual({ operation: 'transactions.create', would_send: { name: 'Series A', deal_id: dealId }, would_change: `a new transaction "Series A" under deal ${dealId}` });
    expect(tx.shown.next_step).toBe(nextStep(tx.shown, 'transaction_create', `create the transaction "Series A" under deal ${dealId}`));
    const txId = tx.result.transaction.id as number;
    expect(tx.text).toBe(`Created transaction ${txId}.\n${DATA_NOTE}`);

    const find = async () => text(await t.mcp.callTool({ name: 'deal_room_find', arguments: { deal_id: dealId } }));
    expect(await find()).toBe(`Deal ${dealId} has no linked room.`);
    const list = async (args: Record<string, unknown> = {}) => text(await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: dealId, ...args } }));
    expect(await list()).toBe(`1 transaction(s): ${txId} "Series A".\n${DATA_NOTE}`);

    const link = await previewThenCommit(t, 'transaction_link_room', { deal_id: dealId, transaction_id: txId, room_id: roomId });
    expect(link.shown.preview.would_change).toBe(`link transaction ${txId} to room ${roomId}`);
    expect(link.shown.next_step).toBe(nextStep(link.shown, 'transaction_link_room', `link transaction ${txId} to room ${roomId}`));
    expect(link.text).toBe(`Linked transaction ${txId}.\n${DATA_NOTE}`);
    const again = structured(await t.mcp.callTool({ name: 'transaction_link_room', arguments: { deal_id: dealId, transaction_id: txId, room_id: roomId } }));
    expect(again.preview.would_change).toBe('nothing: the transaction is already linked to that room');

    expect(await find()).toBe(`Deal ${dealId} is linked to room(s) ${roomId}.`);
    expect(await list()).toBe(`1 transaction(s): ${txId} "Series A" → room ${roomId}.\n${DATA_NOTE}`);
    await t.client.transactions.create({ name: 'Series B', deal_id: dealId });
    expect(await list({ limit: 1 })).toBe(`1 transaction(s): ${txId} "Series A" → room ${roomId} (more: pass next_cursor).\n${DATA_NOTE}`);
    const empty = (await previewThenCommit(t, 'deal_create', { name: 'Empty', stage: 'sourcing', asset_class: 'equity' })).result.deal.id as number;
    expect(text(await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: empty } }))).toBe(`0 transaction(s): none.\n${DATA_NOTE}`);
    await t.close();
  });

  it('webhooks: create, list, ping, rotate and delete, each in its own words; an empty event list is every kind (null on the wire)', async () => {
    const t = await connected({ allowWrites: true, allowDestructive: true });
    const url = 'http://127.0.0.1:9/hook';
    const created = await previewThenCommit(t, 'webhook_create', { url, name: 'hook', event_types: [] });
    expect(created.shown.preview).toEqual({ operation: 'webhooks.create', would_send: { url, name: 'hook', event_types: null }, would_change: `a new endpoint "hook" at ${url}; its signing secret will be written to a file` });
    expect(created.shown.next_step).toBe(nextStep(created.shown, 'webhook_create', `register the webhook endpoint "hook" at ${url}`));
    const hookId = created.result.webhook.id as number;
    expect(created.result.note).toBe('The signing secret was written to secret_file (readable by the user only); it is not shown here.');
    expect(created.text).toBe(`Registered webhook ${hookId}; its signing secret is in ${String(created.result.secret_file)}.\n${DATA_NOTE}`);
    const typed = structured(await t.mcp.callTool({ name: 'webhook_create', arguments: { url, name: 'typed', event_types: ['document.uploaded'] } }));
    expect(typed.preview.would_send.event_types).toEqual(['document.uploaded']);

    expect(text(await t.mcp.callTool({ name: 'webhook_list', arguments: {} }))).toBe(`1 endpoint(s): ${hookId} "hook" "${url}".\n${DATA_NOTE}`);

    const ping = await previewThenCommit(t, 'webhook_ping', { webhook_id: hookId });
    expect(ping.shown.preview).toMatchObject({ operation: 'webhooks.ping', endpoint: { id: hookId, url }, would_change: `a ping.test delivery to ${url}` });
    expect(ping.shown.next_step).toBe(nextStep(ping.shown, 'webhook_ping', `send a ping.test delivery to webhook ${hookId}`));
    expect(ping.result).toEqual({ webhook_id: hookId, pinged: true });
    expect(ping.text).toBe(`Ping sent to webhook ${hookId}.`);

    const rotated = await previewThenCommit(t, 'webhook_rotate_secret', { webhook_id: hookId });
    expect(rotated.shown.preview).toMatchObject({ operation: 'webhooks.rotateSecret', endpoint: { id: hookId }, would_change: `endpoint ${hookId} gets a new signing secret; the current one stops verifying` });
    expect(rotated.shown.next_step).toBe(nextStep(rotated.shown, 'webhook_rotate_secret', `rotate the signing secret of webhook ${hookId}`));
    expect(rotated.result).toMatchObject({ webhook_id: hookId, note: created.result.note });
    expect(rotated.text).toBe(`Rotated the secret of webhook ${hookId}; the new one is in ${String(rotated.result.secret_file)}.`);

    const deleted = await previewThenCommit(t, 'webhook_delete', { webhook_id: hookId });
    expect(deleted.shown.preview).toMatchObject({ operation: 'webhooks.delete', endpoint: { id: hookId }, would_change: `endpoint ${hookId} (${url}) deleted: no more deliveries` });
    expect(deleted.shown.next_step).toBe(nextStep(deleted.shown, 'webhook_delete', `delete webhook ${hookId}`));
    expect(deleted.result).toEqual({ webhook_id: hookId, deleted: true });
    expect(deleted.text).toBe(`Deleted webhook ${hookId}.`);
    expect(text(await t.mcp.callTool({ name: 'webhook_list', arguments: {} }))).toBe(`0 endpoint(s): none.\n${DATA_NOTE}`);
    await t.close();
  });

  it('uploads and questions: the upload names its paths and counts; an answer quotes its sources; no answer says so', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'memo.txt'), 'The lead investor is Northwind Capital.');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const roomId = (await previewThenCommit(t, 'room_create', { name: 'R', room_type: 'company_investment' })).result.room.id as number;
    const upload = await previewThenCommit(t, 'room_documents_upload', { room_id: roomId, paths: ['memo.txt'] });
    expect(upload.shown.next_step).toBe(nextStep(upload.shown, 'room_documents_upload', `upload "memo.txt" to room ${roomId}`));
    expect(upload.text).toBe(`Uploaded 1, skipped 0 (already stored), failed 0, unknown 0.\n${DATA_NOTE}`);
    const documentId = upload.result.uploaded[0].document_id as number;

    const asked = await t.mcp.callTool({ name: 'room_ask', arguments: { room_id: roomId, question: 'Who is the lead investor?' } });
    const { answer, citations } = structured(asked);
    expect(text(asked)).toBe(`Answer: ${JSON.stringify(answer)}\nSources: "memo.txt" (document ${documentId}): ${JSON.stringify(citations[0].passage)}\n${DATA_NOTE}`);
    const none = await t.mcp.callTool({ name: 'room_ask', arguments: { room_id: roomId, question: 'zebra xylophone quasar?' } });
    expect(structured(none)).toMatchObject({ found: false, answer: '' });
    expect(text(none)).toBe(`The documents hold no answer to that question.\n${DATA_NOTE}`);
    await t.close();
  });
});
