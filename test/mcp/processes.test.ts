// Tokens as real hosts use them: a host that starts one `svc-sdk mcp` process per call (the MCP
// Inspector's CLI does) previews in one process and commits in another; a host that passes the
// model only text commits with the token from the text; two processes racing to spend one token
// commit once; a token carried to another service or API key commits nothing. The servers are
// the built bin over stdio, against one emulator listening on 127.0.0.1.
import { Client as McpClient } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/client.js';
import { createEmulator, type ListeningEmulator } from '../../src/testing/index.js';
import { built, CLI, cliEnv, runNode } from '../cli/support.js';
import { tempDir } from './support.js';

const KEY = 'vdr_processes_test_key_42';
const INSPECTOR = join(fileURLToPath(new URL('../node_modules/', import.meta.url)), '@modelcontextprotocol/inspector/clients/launcher/build/index.js');

interface ToolClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text: string }[] };

describe.skipIf(!built)('commit tokens across server processes', () => {
  let service: ListeningEmulator;
  let other: ListeningEmulator;
  let svc: Client;
  beforeAll(async () => {
    service = await createEmulator({ apiKey: KEY }).listen(0);
    other = await createEmulator({ apiKey: KEY }).listen(0);
    svc = new Client({ apiKey: KEY, baseUrl: service.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await service.close();
    await other.close();
  });

  const env = (overrides: Record<string, string> = {}) => cliEnv({ SVC_BASE_URL: service.url, SVC_API_KEY: KEY, ...overrides }) as Record<string, string>;
  const args = (stateDir: string) => [CLI, 'mcp', '--allow-writes', '--state-dir', stateDir];

  /** One server process, with a v2 (or 1.x) client on it, for one call. */
  async function server(stateDir: string, legacy = false, overrides: Record<string, string> = {}): Promise<ToolClient> {
    if (legacy) {
      const client = new LegacyClient({ name: 'per-call-v1', version: '1' });
      await client.connect(new LegacyStdio({ command: process.execPath, args: args(stateDir), env: env(overrides), stderr: 'pipe' }));
      return client as unknown as ToolClient;
    }
    const client = new McpClient({ name: 'per-call-v2', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: args(stateDir), env: env(overrides), stderr: 'pipe' }));
    return client;
  }
  async function once(stateDir: string, name: string, params: Record<string, unknown>, legacy = false, overrides: Record<string, string> = {}): Promise<Result> {
    const client = await server(stateDir, legacy, overrides);
    try {
      return (await client.callTool({ name, arguments: params })) as Result;
    } finally {
      await client.close();
    }
  }
  const transactions = async (dealId: number) => (await svc.transactions.list({ deal_id: dealId })).length;

  it.each([
    ['the v2 client', false],
    ['the 1.x client', true],
  ])('%s: a preview made by one process commits in another (the token taken from the text alone), once', async (_client, legacy) => {
    const stateDir = tempDir();
    const deal = await svc.deals.create({ name: 'D', stage: 'sourcing', asset_class: 'equity' });
    const params = { name: 'Series A', deal_id: deal.id };
    const preview = await once(stateDir, 'transaction_create', params, legacy);
    const fromText = /commit_token: (\S+)/.exec(preview.content[0]!.text)?.[1];
    expect(fromText).toBe(preview.structuredContent?.['commit_token']);
    const commit = await once(stateDir, 'transaction_create', { ...params, commit_token: fromText }, legacy);
    expect(commit.isError, commit.content[0]?.text).toBeFalsy();
    expect(commit.structuredContent).toMatchObject({ status: 'committed' });
    const replay = await once(stateDir, 'transaction_create', { ...params, commit_token: fromText }, legacy);
    expect(replay.content[0]!.text).toMatch(/used already/);
    expect(await transactions(deal.id)).toBe(1);
  }, 60_000);

  it('two processes racing to spend one token: exactly one commits', async () => {
    const stateDir = tempDir();
    const deal = await svc.deals.create({ name: 'D', stage: 'sourcing', asset_class: 'equity' });
    const params = { name: 'Raced', deal_id: deal.id };
    const token = (await once(stateDir, 'transaction_create', params)).structuredContent?.['commit_token'];
    const [a, b] = await Promise.all([server(stateDir), server(stateDir)]);
    const outcomes = (await Promise.all([a, b].map((client) => client.callTool({ name: 'transaction_create', arguments: { ...params, commit_token: token } })))) as Result[];
    await Promise.all([a.close(), b.close()]);
    expect(outcomes.filter((outcome) => !outcome.isError)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.isError).map((outcome) => outcome.content[0]!.text)).toEqual([expect.stringMatching(/used already/)]);
    expect(await transactions(deal.id)).toBe(1);
  }, 60_000);

  it('a token carried to another service, or to another API key, commits nothing', async () => {
    const stateDir = tempDir();
    const deal = await svc.deals.create({ name: 'D', stage: 'sourcing', asset_class: 'equity' });
    const params = { name: 'Carried', deal_id: deal.id };
    const token = (await once(stateDir, 'transaction_create', params)).structuredContent?.['commit_token'];
    const elsewhere = await once(stateDir, 'transaction_create', { ...params, commit_token: token }, false, { SVC_BASE_URL: other.url });
    expect(elsewhere.isError).toBe(true);
    expect(elsewhere.content[0]!.text).toMatch(/made for other arguments, or on another service or API key/);
    const otherKey = await once(stateDir, 'transaction_create', { ...params, commit_token: token }, false, { SVC_API_KEY: 'vdr_another_key_of_the_user' });
    expect(otherKey.content[0]!.text).toMatch(/on another service or API key/);
    expect(await transactions(deal.id)).toBe(0);
    // The token was not spent by those refusals: where it was made, it still commits.
    expect((await once(stateDir, 'transaction_create', { ...params, commit_token: token })).isError).toBeFalsy();
  }, 60_000);

  it('the MCP Inspector CLI (a server per call) previews in one run and commits in the next', async () => {
    const stateDir = tempDir();
    const deal = await svc.deals.create({ name: 'D', stage: 'sourcing', asset_class: 'equity' });
    const home = tempDir('svc-mcp-inspector-home-');
    const inspect = (extra: string[]) =>
      runNode([INSPECTOR, '--cli', '--method', 'tools/call', '--tool-name', 'transaction_create', '--tool-arg', 'name=Inspected', `deal_id=${deal.id}`, ...extra, '-e', `SVC_BASE_URL=${service.url}`, '-e', `SVC_API_KEY=${KEY}`, '--', process.execPath, ...args(stateDir)], {
        env: env({ HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') }),
        timeout: 60_000,
      });
    const preview = await inspect([]);
    expect(preview.code, preview.stderr).toBe(0);
    const token = (JSON.parse(preview.stdout) as { structuredContent: { commit_token: string } }).structuredContent.commit_token;
    const commit = await inspect([`commit_token=${token}`]);
    expect(commit.code, commit.stderr).toBe(0);
    expect(JSON.parse(commit.stdout)).toMatchObject({ structuredContent: { status: 'committed' } });
    expect(await transactions(deal.id)).toBe(1);
  }, 120_000);
});

describe.skipIf(!built)('a server started in a home folder, as desktop hosts start it', () => {
  it('lists no upload tool (the working directory is no root); with --upload-root ~ the keys and its own secrets are still refused', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const home = tempDir('svc-mcp-cwd-home-');
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY', { mode: 0o600 });
    const stateDir = join(home, '.local', 'state', 'svc-sdk', 'mcp');
    mkdirSync(join(stateDir, 'webhook-secrets'), { recursive: true, mode: 0o700 });
    writeFileSync(join(stateDir, 'webhook-secrets', 'webhook-1.secret'), `whsec_${'1'.repeat(64)}`, { mode: 0o600 });
    const started = async (extra: string[]) => {
      const client = new McpClient({ name: 'desktop', version: '1' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--emulator', '--allow-writes', ...extra], cwd: home, env: cliEnv({ HOME: home, XDG_STATE_HOME: '' }) as Record<string, string>, stderr: 'pipe' }));
      return client;
    };
    const plain = await started([]);
    expect((await plain.listTools()).tools.map((tool) => tool.name)).not.toContain('room_documents_upload');
    await plain.close();
    const rooted = await started(['--upload-root', home]);
    for (const path of ['.ssh/id_ed25519', join(stateDir, 'webhook-secrets', 'webhook-1.secret')]) {
      const result = (await rooted.callTool({ name: 'room_documents_upload', arguments: { room_id: 1, paths: [path] } })) as Result;
      expect(result.isError, path).toBe(true);
      expect(result.content[0]!.text).toMatch(/upload rule "(ssh|state-dir)"\): not sent\. Only the user can allow it, by starting the server with --allow-upload/);
    }
    await rooted.close();
  }, 60_000);
});
