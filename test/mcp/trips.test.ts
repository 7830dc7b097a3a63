// The smaller trips: a secrets folder that is not the user's own, a preview its commit would
// refuse, a tool the server does not list, a secret shape the server never saw.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultStateDir, secretFiles } from '../../packages/mcp/src/secret-files.js';
import { connected, structured, tempDir, text } from './support.js';

const HOOK = { url: 'http://127.0.0.1:9/hook', name: 'uploads', event_types: [] };

async function commitHook(t: Awaited<ReturnType<typeof connected>>) {
  const preview = await t.mcp.callTool({ name: 'webhook_create', arguments: HOOK });
  return t.mcp.callTool({ name: 'webhook_create', arguments: { ...HOOK, commit_token: structured(preview).commit_token } });
}

describe('the secrets folder is checked before the webhook is created', () => {
  it.each([
    ['open to other users (0777)', (dir: string) => (mkdirSync(dir, { recursive: true }), chmodSync(dir, 0o777)), /is open to other users \(mode 777\): nothing was created; chmod 700 it/],
    ['a symbolic link', (dir: string) => (mkdirSync(join(dir, '..', 'elsewhere'), { recursive: true, mode: 0o700 }), symlinkSync(join(dir, '..', 'elsewhere'), dir)), /is a symbolic link: nothing was created/],
    ['a file, not a folder', (dir: string) => writeFileSync(dir, ''), /is missing or not a folder: nothing was created/],
  ])('a secrets folder that is %s: refused, and no webhook exists whose secret would be lost', async (_case, plant, message) => {
    const stateDir = tempDir();
    plant(join(stateDir, 'webhook-secrets'));
    const t = await connected({ allowWrites: true, stateDir });
    const result = await commitHook(t);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
    expect(t.writes()).toEqual([]);
    expect(await t.client.webhooks.list()).toEqual([]);
    await t.close();
  });

  it('a good folder: one 0600 file named after the webhook, no pending file left behind', async () => {
    const t = await connected({ allowWrites: true });
    const result = await commitHook(t);
    const { webhook, secret_file } = structured(result).result;
    expect(secret_file).toMatch(new RegExp(`webhook-${webhook.id}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z-[0-9a-f]{8}\\.secret$`));
    expect(readdirSync(join(t.stateDir, 'webhook-secrets'))).toHaveLength(1);
    await t.close();
  });

  it('a service that refuses the create leaves no empty secret file', async () => {
    const t = await connected({ allowWrites: true });
    t.client.webhooks.create = (() => Promise.reject(new Error('service down'))) as never;
    const result = await commitHook(t);
    expect(text(result)).toMatch(/service down/);
    expect(readdirSync(join(t.stateDir, 'webhook-secrets'))).toEqual([]);
    await t.close();
  });
});

describe('a preview never hands out a token its commit would refuse', () => {
  it.each([
    ['webhook_create', { ...HOOK, url: 'http://example.com/hook' }, /url must be an https:\/\/ URL of your receiver/],
    ['webhook_create', { ...HOOK, url: 'ftp://127.0.0.1/hook' }, /url must be an https:\/\/ URL/],
    // Tool arguments are the params schemas' own fields: their messages are the SDK's.
    ['room_create', { name: '', room_type: 'company_investment' }, /name must not be empty: pass the room name/],
    ['deal_create', { name: 'Acme', stage: '', asset_class: 'equity' }, /stage must not be empty: pass a value such as 'sourcing' or 'closing'/],
    ['transaction_create', { name: 'Series A', deal_id: 1.5 }, /deal_id must be an integer id, as the service returned it/],
  ])('%s %j: refused at the preview, by the SDK\'s own rules', async (name, args, message) => {
    const t = await connected({ allowWrites: true });
    const result = await t.mcp.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
    expect(structured(result)).toBeUndefined();
    expect(t.sent).toEqual([]);
    await t.close();
  });
});

describe('a tool the server does not list', () => {
  const call = async (t: Awaited<ReturnType<typeof connected>>, name: string) =>
    t.mcp.callTool({ name, arguments: {} }).then(
      (result) => text(result),
      (error: Error) => error.message,
    );

  it('names the flag that lists it', async () => {
    const readOnly = await connected();
    expect(await call(readOnly, 'deal_create')).toMatch(/deal_create is not listed by this server: it changes state: the user can list it by starting the server with --allow-writes/);
    expect(await call(readOnly, 'webhook_delete')).toMatch(/webhook_delete is not listed by this server: it is destructive: .* --allow-writes --allow-destructive/);
    expect(await call(readOnly, 'deal_merge')).toMatch(/no tool has that name/);
    await readOnly.close();
    const narrowed = await connected({ excludeTools: ['room_ask'] });
    expect(await call(narrowed, 'room_ask')).toMatch(/room_ask is not listed by this server: the server was started without it \(--tool \/ --no-tool\)/);
    expect(await call(narrowed, 'webhook_list')).not.toMatch(/not listed/);
    await narrowed.close();
    // Writes listed, destructive not: a destructive tool still names --allow-destructive; a write left out by --no-tool names that.
    const writes = await connected({ allowWrites: true, excludeTools: ['deal_create'] });
    expect(await call(writes, 'webhook_delete')).toMatch(/webhook_delete is not listed by this server: it is destructive: the user can list it by starting the server with --allow-writes --allow-destructive/);
    expect(await call(writes, 'deal_create')).toMatch(/deal_create is not listed by this server: the server was started without it \(--tool \/ --no-tool\)/);
    // A tool over the action ledger, on a server without one.
    expect(await call(writes, 'action_wait')).toMatch(/action_wait is not listed by this server: it reads an action ledger: start the server with --actions-redis <url>/);
    await writes.close();
    // Writes and destructive listed, one destructive tool left out by --no-tool: that, not the flags, is named.
    const destructive = await connected({ allowWrites: true, allowDestructive: true, excludeTools: ['webhook_delete'] });
    expect(await call(destructive, 'webhook_delete')).toMatch(/webhook_delete is not listed by this server: the server was started without it \(--tool \/ --no-tool\)/);
    await destructive.close();
  });
});

describe('a failed call says which tool failed and why, as the model reads it', () => {
  it("the SDK's own error message; a thrown value that is no Error, as text", async () => {
    const t = await connected({ allowWrites: true });
    const sdkMessage = await t.client.webhooks.retrieve(999).then(() => 'none', (error: unknown) => (error as Error).message);
    // A preview whose SDK call fails for real: the emulator has no webhook 999.
    const ping = await t.mcp.callTool({ name: 'webhook_ping', arguments: { webhook_id: 999 } });
    expect(ping.isError).toBe(true);
    expect(text(ping)).toBe(`[svc-sdk] webhook_ping failed: ${sdkMessage}`);
    t.client.webhooks.list = (() => Promise.reject('the proxy hung up')) as never;
    const plain = await t.mcp.callTool({ name: 'webhook_list', arguments: {} });
    expect(plain.isError).toBe(true);
    expect(text(plain)).toBe('[svc-sdk] webhook_list failed: the proxy hung up');
    await t.close();
  });
});

describe('redaction of secret shapes the server never saw', () => {
  it('leaves not one digit of an unseen whsec_ or vdr_ value', async () => {
    const t = await connected();
    const unseen = `whsec_${'9f'.repeat(32)}`;
    t.client.webhooks.list = (() => Promise.reject(new Error(`echo: ${unseen} and vdr_live_${'7c'.repeat(12)}`))) as never;
    const result = await t.mcp.callTool({ name: 'webhook_list', arguments: {} });
    expect(text(result)).toContain('whsec_[redacted] and vdr_[redacted]');
    expect(text(result)).not.toMatch(/9f|7c/);
    await t.close();
  });
});

describe('secretFiles', () => {
  it('writes exactly the secret and a newline, 0600, and redacts it from then on; values under 8 characters are not redaction patterns', async () => {
    const { readFileSync, statSync } = await import('node:fs');
    const dir = join(tempDir(), 'webhook-secrets');
    const files = secretFiles(dir, ['', 'short', 'vdr_long_api_key_1']);
    expect(files.redact('a short text with vdr_long_api_key_1')).toBe('a short text with [redacted]');
    const pending = await files.open();
    const path = await pending.write('webhook-7', 'S3cretValueNeverSeen');
    expect(path).toMatch(/webhook-7-.*\.secret$/);
    expect(readFileSync(path, 'utf8')).toBe('S3cretValueNeverSeen\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(files.redact('it was S3cretValueNeverSeen!')).toBe('it was [redacted]!');
    const discarded = await files.open();
    await discarded.discard();
    expect(readdirSync(dir)).toEqual([path.split('/').at(-1)]);
  });
});

/** What this process holds open (Linux: /proc/self/fd): no descriptor of a secret file may be left behind. */
const openPaths = () =>
  readdirSync('/proc/self/fd').map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return '';
    }
  });
const linux = existsSync('/proc/self/fd');

describe('secretFiles, attacked through its folder and its names', () => {
  it.skipIf(!linux)('closes the file it wrote or discarded: no descriptor of a secret file stays open', async () => {
    const dir = join(realpathSync(tempDir()), 'webhook-secrets');
    const files = secretFiles(dir, []);
    const written = await (await files.open()).write('webhook-1', 'S3cretValueNeverSeen');
    await (await files.open()).discard();
    expect(openPaths().filter((path) => path.startsWith(dir))).toEqual([]);
    expect(readFileSync(written, 'utf8')).toBe('S3cretValueNeverSeen\n');
  });

  it('makes a missing folder and its parents, 0700; a state folder that is a file is refused before any secret exists', async () => {
    const deep = join(tempDir(), 'a', 'b', 'webhook-secrets');
    const path = await (await secretFiles(deep, []).open()).write('webhook-2', 'S3cretValueNeverSeen');
    expect(path.startsWith(deep)).toBe(true);
    const file = join(tempDir(), 'state');
    writeFileSync(file, '');
    await expect(secretFiles(join(file, 'webhook-secrets'), []).open()).rejects.toThrow(/the secrets folder .* is missing or not a folder: nothing was created/);
  });

  it('a folder that takes no new file (a path so long no file name fits: ENAMETOOLONG) is refused, naming the error, before any secret exists', async () => {
    // Components of 200 characters up to about 4 070 in all: the folder can be made, a file in it is over PATH_MAX.
    let dir = realpathSync(tempDir());
    while (dir.length < 4070 - 201) dir = join(dir, 'd'.repeat(200));
    dir = join(dir, 'w'.repeat(4070 - dir.length - 1));
    await expect(secretFiles(dir, []).open()).rejects.toThrow(/^the secrets folder .* cannot take a new file \(ENAMETOOLONG\): nothing was created; fix the folder and call again$/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a folder readable by its group is refused too (mode 750)', async () => {
    const dir = join(tempDir(), 'webhook-secrets');
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o750);
    await expect(secretFiles(dir, []).open()).rejects.toThrow(/is open to other users \(mode 750\)/);
  });

  it('when the final name cannot be linked (a filesystem without hard links), the secret stays under its pending name', async () => {
    const dir = join(tempDir(), 'webhook-secrets');
    const path = await (await secretFiles(dir, []).open()).write('no-such-folder/webhook-3', 'S3cretValueNeverSeen');
    expect(path).toMatch(/pending-.*\.secret$/);
    expect(readFileSync(path, 'utf8')).toBe('S3cretValueNeverSeen\n');
  });

  it('redacts a value of 8 characters it was given, and leaves a word that only contains vdr_ or whsec_', () => {
    const files = secretFiles(tempDir(), ['8chars!!']);
    expect(files.redact('key 8chars!! end')).toBe('key [redacted] end');
    expect(files.redact('see my_vdr_notes and awhsec_x')).toBe('see my_vdr_notes and awhsec_x');
    expect(files.redact('(vdr_live_1) whsec_2')).toBe('(vdr_[redacted]) whsec_[redacted]');
  });

  it("defaultStateDir is the per-user state folder's mcp", () => {
    expect(defaultStateDir({ HOME: '/home/u', XDG_STATE_HOME: '' })).toBe('/home/u/.local/state/svc-sdk/mcp');
  });
});
