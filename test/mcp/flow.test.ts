import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connected, structured, tempDir, text } from './support.js';

/** Calls a write tool twice: the preview, then the commit with its token. */
async function previewThenCommit(mcp: Awaited<ReturnType<typeof connected>>['mcp'], name: string, args: Record<string, unknown>, options?: Parameters<typeof mcp.callTool>[1]) {
  const preview = await mcp.callTool({ name, arguments: args });
  expect(preview.isError, text(preview)).toBeFalsy();
  const commit = await mcp.callTool({ name, arguments: { ...args, commit_token: structured(preview).commit_token } }, options);
  expect(commit.isError, text(commit)).toBeFalsy();
  return { preview: structured(preview).preview, result: structured(commit).result };
}

/** A folder of text documents for the room. */
function documents(): string {
  const root = tempDir('svc-mcp-docs-');
  mkdirSync(join(root, 'legal'));
  writeFileSync(join(root, 'term-sheet.txt'), 'The Series A valuation is 40 million dollars pre-money.\n\nThe lead investor is Northwind Capital.');
  writeFileSync(join(root, 'legal', 'shareholders.txt'), 'Liquidation preference is one times non-participating.');
  return root;
}

describe('the typical flow, driven only through tools', () => {
  it('deal preview → commit → room → transaction → link → upload (progress) → room_ask with citations', async () => {
    const folder = documents();
    const t = await connected({ allowWrites: true, uploadRoots: [folder] });
    const { mcp } = t;

    const deal = await previewThenCommit(mcp, 'deal_create', { name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
    expect(deal.preview.deal.id).toBeNull();
    const dealId = deal.result.deal.id as number;
    const room = (await previewThenCommit(mcp, 'room_create', { name: 'Acme data room', room_type: 'company_investment' })).result.room;
    const tx = (await previewThenCommit(mcp, 'transaction_create', { name: 'Acme Series A', deal_id: dealId })).result.transaction;

    const link = await previewThenCommit(mcp, 'transaction_link_room', { deal_id: dealId, transaction_id: tx.id, room_id: room.id });
    expect(link.preview).toMatchObject({ operation: 'transactions.update', would_send: { linked_room_id: room.id } });
    expect(link.preview.current_room_id).toBeUndefined();
    const found = await mcp.callTool({ name: 'deal_room_find', arguments: { deal_id: dealId } });
    expect(structured(found)).toMatchObject({ deal_id: dealId, room_ids: [room.id] });

    const progress: { progress: number; total?: number }[] = [];
    const upload = await previewThenCommit(mcp, 'room_documents_upload', { room_id: room.id, paths: ['.'] }, { onprogress: (update) => progress.push(update) });
    expect(upload.preview).toMatchObject({ total_files: 2, entries: [{ kind: 'folder', files: 2 }] });
    expect(upload.result.uploaded.map((file: { path: string }) => file.path).sort()).toEqual([join(folder, 'legal/shareholders.txt'), join(folder, 'term-sheet.txt')].sort());
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ progress: progress.at(-1)!.total });

    const asked = await mcp.callTool({ name: 'room_ask', arguments: { room_id: room.id, question: 'Who is the lead investor?' } });
    const answer = structured(asked);
    expect(answer.found).toBe(true);
    expect(answer.answer).toContain('Northwind');
    const termSheet = upload.result.uploaded.find((file: { path: string }) => file.path.endsWith('term-sheet.txt'));
    expect(answer.citations[0]).toMatchObject({ document_id: termSheet.document_id, filename: 'term-sheet.txt', passage: expect.stringContaining('Northwind') });
    // No resource_link: the server serves no resources, so a link would answer "Method not found".
    expect(asked.content.map((block) => block.type)).toEqual(['text']);
    expect(t.mcp.getServerCapabilities()?.resources).toBeUndefined();
    await t.close();
  });

  it('a second commit of the same folder skips what is stored (the manifest), never sending a document twice', async () => {
    const folder = documents();
    const t = await connected({ allowWrites: true, uploadRoots: [folder] });
    const room = (await previewThenCommit(t.mcp, 'room_create', { name: 'R', room_type: 'company_investment' })).result.room;
    await previewThenCommit(t.mcp, 'room_documents_upload', { room_id: room.id, paths: [folder] });
    const again = await previewThenCommit(t.mcp, 'room_documents_upload', { room_id: room.id, paths: [folder] });
    expect(again.result).toMatchObject({ uploaded: [], skipped: expect.arrayContaining([join(folder, 'term-sheet.txt')]) });
    expect(t.writes().filter((request) => request.path.endsWith('/documents'))).toHaveLength(2);
    await t.close();
  });

  it('the same folder to another room is a run of its own: every document sent there too, each result naming its local path', async () => {
    const folder = documents();
    const t = await connected({ allowWrites: true, uploadRoots: [folder] });
    const rooms = [await t.client.rooms.create({ name: 'A', room_type: 'company_investment' }), await t.client.rooms.create({ name: 'B', room_type: 'company_investment' })];
    const local = [join(folder, 'legal/shareholders.txt'), join(folder, 'term-sheet.txt')];
    for (const room of rooms) {
      const { result } = await previewThenCommit(t.mcp, 'room_documents_upload', { room_id: room.id, paths: ['.'] });
      expect(result.uploaded.map((file: { path: string }) => file.path).sort()).toEqual(local);
      expect(result.skipped).toEqual([]);
    }
    expect(t.writes().filter((request) => request.path.endsWith('/documents'))).toHaveLength(4);
    await t.close();
  });

  it.runIf(process.platform !== 'win32')("a manifest folder others can open, pre-made in the state folder, is refused naming it: no document sent", async () => {
    const folder = documents();
    const t = await connected({ allowWrites: true, uploadRoots: [folder] });
    const manifests = join(t.stateDir, 'upload-manifests');
    mkdirSync(manifests);
    chmodSync(manifests, 0o777);
    const room = (await previewThenCommit(t.mcp, 'room_create', { name: 'R', room_type: 'company_investment' })).result.room;
    const preview = await t.mcp.callTool({ name: 'room_documents_upload', arguments: { room_id: room.id, paths: [folder] } });
    const commit = await t.mcp.callTool({ name: 'room_documents_upload', arguments: { room_id: room.id, paths: [folder], commit_token: structured(preview).commit_token } });
    expect(commit.isError).toBe(true);
    expect(text(commit)).toContain(`[svc-sdk] the state folder ${manifests} can be opened by other users (mode 0777): run chmod 700 '${manifests}'`);
    expect(t.writes().filter((request) => request.path.endsWith('/documents'))).toHaveLength(0);
    await t.close();
  });

  it('paths outside the upload roots (or through a link out of them) are refused before anything is read or sent', async () => {
    const folder = documents();
    symlinkSync(join(folder, 'term-sheet.txt'), join(folder, 'legal', 'link-out.txt'));
    const t = await connected({ allowWrites: true, uploadRoots: [join(folder, 'legal')] });
    for (const path of ['../term-sheet.txt', 'link-out.txt', folder, '/etc/passwd', '/nonexistent/file']) {
      const result = await t.mcp.callTool({ name: 'room_documents_upload', arguments: { room_id: 1, paths: [path] } });
      expect(result.isError, path).toBe(true);
      expect(text(result)).toMatch(/\[svc-sdk\] room_documents_upload: paths: ".*" (is outside the folders|does not exist)/);
    }
    expect(t.sent).toEqual([]);
    await t.close();
  });

  it('an upload root given through a symbolic link admits the files inside it', async () => {
    const folder = documents();
    const viaLink = join(tempDir('svc-mcp-link-'), 'docs');
    symlinkSync(folder, viaLink);
    const t = await connected({ allowWrites: true, uploadRoots: [viaLink] });
    const preview = await t.mcp.callTool({ name: 'room_documents_upload', arguments: { room_id: 1, paths: ['term-sheet.txt'] } });
    expect(preview.isError, text(preview)).toBeFalsy();
    expect(structured(preview).preview).toMatchObject({ total_files: 1, entries: [{ kind: 'file', files: 1 }] });
    await t.close();
  });

  it('transaction_link_room shows the link it would replace, and refuses to replace it without allowDestructive', async () => {
    const t = await connected({ allowWrites: true });
    const deal = (await previewThenCommit(t.mcp, 'deal_create', { name: 'D', stage: 'sourcing', asset_class: 'equity' })).result.deal;
    const [first, second] = [
      (await previewThenCommit(t.mcp, 'room_create', { name: 'A', room_type: 'company_investment' })).result.room,
      (await previewThenCommit(t.mcp, 'room_create', { name: 'B', room_type: 'company_investment' })).result.room,
    ];
    const tx = (await previewThenCommit(t.mcp, 'transaction_create', { name: 'T', deal_id: deal.id })).result.transaction;
    await previewThenCommit(t.mcp, 'transaction_link_room', { deal_id: deal.id, transaction_id: tx.id, room_id: first.id });
    const writes = t.writes().length;
    const replace = await t.mcp.callTool({ name: 'transaction_link_room', arguments: { deal_id: deal.id, transaction_id: tx.id, room_id: second.id } });
    expect(replace.isError).toBe(true);
    expect(text(replace)).toMatch(new RegExp(`linked to room ${first.id} already: replacing a link needs the server started with --allow-destructive`));
    expect(t.writes()).toHaveLength(writes);
    await t.close();

    const destructive = await connected({ allowWrites: true, allowDestructive: true });
    // A fresh emulator: rebuild the same state, then replace.
    const d = (await previewThenCommit(destructive.mcp, 'deal_create', { name: 'D', stage: 'sourcing', asset_class: 'equity' })).result.deal;
    const r1 = (await previewThenCommit(destructive.mcp, 'room_create', { name: 'A', room_type: 'company_investment' })).result.room;
    const r2 = (await previewThenCommit(destructive.mcp, 'room_create', { name: 'B', room_type: 'company_investment' })).result.room;
    const x = (await previewThenCommit(destructive.mcp, 'transaction_create', { name: 'T', deal_id: d.id })).result.transaction;
    await previewThenCommit(destructive.mcp, 'transaction_link_room', { deal_id: d.id, transaction_id: x.id, room_id: r1.id });
    const replaced = await previewThenCommit(destructive.mcp, 'transaction_link_room', { deal_id: d.id, transaction_id: x.id, room_id: r2.id });
    expect(replaced.preview).toMatchObject({ current_room_id: r1.id, would_change: `replace the link to room ${r1.id} by room ${r2.id}` });
    expect(replaced.result.transaction.linked_room_id).toBe(r2.id);
    await destructive.close();
  });

  it('transaction_link_room checks the link again at the commit: linked elsewhere since the preview, it is refused; an unknown transaction is refused at the preview', async () => {
    const t = await connected({ allowWrites: true });
    const deal = (await previewThenCommit(t.mcp, 'deal_create', { name: 'D', stage: 'sourcing', asset_class: 'equity' })).result.deal;
    const [first, second] = [await t.client.rooms.create({ name: 'A', room_type: 'company_investment' }), await t.client.rooms.create({ name: 'B', room_type: 'company_investment' })];
    const tx = await t.client.transactions.create({ name: 'T', deal_id: deal.id });
    const args = { deal_id: deal.id, transaction_id: tx.id, room_id: second.id };
    const preview = await t.mcp.callTool({ name: 'transaction_link_room', arguments: args });
    expect(structured(preview).preview.would_change).toBe(`link transaction ${tx.id} to room ${second.id}`);
    // Someone links it to another room in between.
    await t.client.transactions.update(tx.id, { linked_room_id: first.id });
    const writes = t.writes().length;
    const commit = await t.mcp.callTool({ name: 'transaction_link_room', arguments: { ...args, commit_token: structured(preview).commit_token } });
    expect(commit.isError).toBe(true);
    expect(text(commit)).toMatch(new RegExp(`transaction ${tx.id} is linked to room ${first.id} already: replacing a link needs the server started with --allow-destructive`));
    expect(t.writes()).toHaveLength(writes);
    const unknown = await t.mcp.callTool({ name: 'transaction_link_room', arguments: { ...args, transaction_id: tx.id + 100 } });
    expect(text(unknown)).toBe(`[svc-sdk] transaction_link_room: transaction_id: deal ${deal.id} has no transaction ${tx.id + 100}: list them with deal_transactions_list`);
    await t.close();
  });

  it('lists are bounded and carry a cursor to the next page', async () => {
    const t = await connected({ allowWrites: true });
    const deal = (await previewThenCommit(t.mcp, 'deal_create', { name: 'D', stage: 'sourcing', asset_class: 'equity' })).result.deal;
    for (let i = 0; i < 5; i++) await t.client.transactions.create({ name: `T${i}`, deal_id: deal.id });
    const first = structured(await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: deal.id, limit: 2 } }));
    expect(first.transactions).toHaveLength(2);
    expect(first.hint).toMatch(/3 more: call again with cursor/);
    const seen = [...first.transactions];
    let cursor = first.next_cursor as string | undefined;
    while (cursor) {
      const page = structured(await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: deal.id, limit: 2, cursor } }));
      seen.push(...page.transactions);
      cursor = page.next_cursor;
    }
    expect(seen.map((tx) => tx.name)).toEqual(['T0', 'T1', 'T2', 'T3', 'T4']);
    await t.close();
  });

  it('a page that reaches the end has no cursor; each page says how many are left; no limit is a page of 20', async () => {
    const t = await connected({ allowWrites: true });
    const deal = (await previewThenCommit(t.mcp, 'deal_create', { name: 'D', stage: 'sourcing', asset_class: 'equity' })).result.deal;
    for (let i = 0; i < 24; i++) await t.client.transactions.create({ name: `T${i}`, deal_id: deal.id });
    const list = async (args: Record<string, unknown>) => structured(await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: deal.id, ...args } }));
    const whole = await list({});
    expect(whole.transactions).toHaveLength(20);
    expect(whole.hint).toBe('4 more: call again with cursor set to next_cursor');
    const second = await list({ limit: 8, cursor: (await list({ limit: 8 })).next_cursor });
    expect(second.transactions.map((tx: { name: string }) => tx.name)).toEqual(['T8', 'T9', 'T10', 'T11', 'T12', 'T13', 'T14', 'T15']);
    expect(second.hint).toBe('8 more: call again with cursor set to next_cursor');
    // 24 = 3 pages of 8: the third is the last, with no cursor and no hint.
    const third = await list({ limit: 8, cursor: second.next_cursor });
    expect(third.transactions).toHaveLength(8);
    expect(third).not.toHaveProperty('next_cursor');
    expect(third).not.toHaveProperty('hint');
    await t.close();
  });

  it('a cursor is only what this server wrote: anything around or after the offset is refused; an offset past the end is an empty page', async () => {
    const t = await connected({ allowWrites: true });
    const deal = (await previewThenCommit(t.mcp, 'deal_create', { name: 'D', stage: 'sourcing', asset_class: 'equity' })).result.deal;
    await t.client.transactions.create({ name: 'T0', deal_id: deal.id });
    const call = (cursor: string) => t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: deal.id, cursor: Buffer.from(cursor).toString('base64url') } });
    for (const forged of ['xo:0', 'o:0x', 'o:', 'o:1234567890']) {
      const result = await call(forged);
      expect(result.isError, forged).toBe(true);
      expect(text(result)).toMatch(/cursor is not one this server gave/);
    }
    expect(structured(await call('o:0')).transactions).toHaveLength(1);
    expect(structured(await call('o:123456789')).transactions).toEqual([]);
    const bad = await t.mcp.callTool({ name: 'deal_transactions_list', arguments: { deal_id: deal.id, cursor: 'bogus' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/cursor is not one this server gave/);
    await t.close();
  });
});
