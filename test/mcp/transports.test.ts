// The server as hosts reach it, with clients nobody here wrote: the built `svc-sdk mcp` spawned
// over stdio, and `svc-sdk mcp --http` with its Host / Origin allow-list and body cap; the
// official v2 client and the previous generation's 1.x client.
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { built, CLI, cliEnv, start, type Running } from '../cli/support.js';
import { tempDir } from './support.js';

const DEAL = { name: 'Acme', stage: 'sourcing', asset_class: 'equity' };
const CREDENTIAL = 'transports-test-credential-0123';
const auth = { authorization: `Bearer ${CREDENTIAL}` };
const stdioArgs = (stateDir: string) => [CLI, 'mcp', '--emulator', '--allow-writes', '--state-dir', stateDir];

/** Any client with listTools / callTool (v2 and 1.x have the same two calls). */
interface ToolClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** Lists the tools, previews and commits a deal: the same checks through any client. */
async function dealFlow(client: ToolClient) {
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  expect(names).toContain('deal_create');
  expect(names).not.toContain('webhook_delete');
  const preview = (await client.callTool({ name: 'deal_create', arguments: DEAL })) as { structuredContent: { commit_token: string; preview: { deal: { id: null } } } };
  expect(preview.structuredContent.preview.deal.id).toBeNull();
  const commit = (await client.callTool({ name: 'deal_create', arguments: { ...DEAL, commit_token: preview.structuredContent.commit_token } })) as { structuredContent: { status: string; result: { deal: { id: number } } } };
  expect(commit.structuredContent).toMatchObject({ status: 'committed', result: { deal: { id: expect.any(Number), name: 'Acme' } } });
  const replay = (await client.callTool({ name: 'deal_create', arguments: { ...DEAL, commit_token: preview.structuredContent.commit_token } })) as { isError?: boolean };
  expect(replay.isError).toBe(true);
}

describe.skipIf(!built)('svc-sdk mcp over stdio (spawned)', () => {
  it('the official v2 client lists, previews and commits', async () => {
    const client = new McpClient({ name: 'stdio-v2', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: stdioArgs(tempDir()), env: cliEnv() as Record<string, string>, stderr: 'pipe' }));
    await dealFlow(client);
    await client.close();
  });

  it('the 1.x @modelcontextprotocol/sdk client lists, previews and commits', async () => {
    const client = new LegacyClient({ name: 'stdio-v1', version: '1.0.0' });
    await client.connect(new LegacyStdio({ command: process.execPath, args: stdioArgs(tempDir()), env: cliEnv() as Record<string, string>, stderr: 'pipe' }));
    await dealFlow(client as unknown as ToolClient);
    await client.close();
  });
});

describe.skipIf(!built)('svc-sdk mcp --http (spawned)', () => {
  let server: Running;
  let url: string;
  beforeAll(async () => {
    server = start(['mcp', '--http', '--port', '0', '--emulator', '--allow-writes', '--state-dir', tempDir(), '--max-body-bytes', '4096'], { SVC_MCP_CREDENTIAL: CREDENTIAL });
    url = (await server.waitFor(/listening on (http:\S+)/))[1]!;
  });
  afterAll(async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('the 1.x client (previous protocol) lists, previews and commits over Streamable HTTP', async () => {
    const client = new LegacyClient({ name: 'http-v1', version: '1.0.0' });
    await client.connect(new LegacyHttp(new URL(url), { requestInit: { headers: auth } }));
    await dealFlow(client as unknown as ToolClient);
    await client.close();
  });

  it('the v2 client on the current protocol (2026-07-28) lists, previews and commits, the user confirming through input_required', async () => {
    const asked: string[] = [];
    const client = new McpClient({ name: 'http-v2', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } }));
    await dealFlow(client);
    expect(asked).toEqual(['Allow the agent to create the deal "Acme" (stage sourcing, asset class equity)?']);
    await client.close();
  });

  it('a Host or Origin outside the allow-list is refused before the server sees the request', async () => {
    // node:http, because fetch does not let a caller set Host (a browser after DNS rebinding does send it).
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
        const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth, ...headers } }, (res) => (res.resume(), resolve(res.statusCode ?? 0)));
        req.on('error', reject);
        req.end(body);
      });
    expect(await post({ host: 'attacker.example' })).toBe(403);
    expect(await post({ origin: 'https://attacker.example' })).toBe(403);
    expect(await post({ host: `localhost:${new URL(url).port}`, origin: 'http://localhost:5173' })).toBe(200);
  });

  it('without the credential, a request is answered 401', async () => {
    const response = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }), headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
    expect(response.status).toBe(401);
  });

  it('a body over the cap is answered 413, with or without a content-length', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'room_ask', arguments: { room_id: 1, question: 'x'.repeat(8000) } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth };
    expect((await fetch(url, { method: 'POST', body: big, headers })).status).toBe(413);
    const chunked = new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode(big)), controller.close()) });
    expect((await fetch(url, { method: 'POST', body: chunked, headers, duplex: 'half' } as RequestInit)).status).toBe(413);
  });
});
