// The user's yes cannot be forged: on the 2026-07-28 protocol the commit answers input_required
// with a requestState bound to the token, and counts an elicitation answer only on the retry that
// echoes that state. Here the official v2 client runs the real round against the HTTP handler in
// process; its retry is recorded and replayed by hand with the state removed or changed.
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createMcpHttpHandler } from '../../packages/mcp/src/index.js';
import { emulatedClient, tempDir } from './support.js';

const DEAL = { name: 'Acme', stage: 'sourcing', asset_class: 'equity' };
const URL_ = 'http://127.0.0.1/mcp';

describe('consent on the current protocol (input_required)', () => {
  it('an answer replayed without the state the server minted, or with another, is not a yes; the real round commits once', async () => {
    const world = emulatedClient();
    const handler = createMcpHttpHandler({ client: world.client, allowWrites: true, stateDir: tempDir(), credential: false });
    const sent: { headers: Headers; body: string }[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      sent.push({ headers: new Headers(request.headers), body: await request.clone().text() });
      return handler.fetch(request);
    };
    const client = new McpClient({ name: 'consent', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
    await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch }));

    const preview = await client.callTool({ name: 'deal_create', arguments: DEAL });
    const token = (preview.structuredContent as { commit_token: string }).commit_token;
    const before = sent.length;
    // A forgery sent first, before the real round: the commit's call with a made-up "accepted" answer.
    const first = sent.find((message) => message.body.includes('"deal_create"'))!;
    const forged = JSON.parse(first.body) as { id: number; params: Record<string, unknown> };
    forged.id = 9001;
    forged.params = { ...forged.params, arguments: { ...DEAL, commit_token: token }, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, requestState: 'made-up' };
    const forgedAnswer = await (await handler.fetch(new Request(URL_, { method: 'POST', headers: first.headers, body: JSON.stringify(forged) }))).json();
    expect(JSON.stringify(forgedAnswer)).toContain('input_required');
    delete forged.params['requestState'];
    const withoutState = await (await handler.fetch(new Request(URL_, { method: 'POST', headers: first.headers, body: JSON.stringify({ ...forged, id: 9002 }) }))).json();
    expect(JSON.stringify(withoutState)).toContain('input_required');
    expect(world.writes()).toEqual([]);

    // The real round: the client fulfils the input request and retries with the state.
    const commit = await client.callTool({ name: 'deal_create', arguments: { ...DEAL, commit_token: token } });
    expect((commit.structuredContent as { status: string }).status).toBe('committed');
    const retry = sent.slice(before).find((message) => message.body.includes('requestState'));
    expect(retry).toBeDefined();
    expect(world.writes()).toHaveLength(1);

    // The retry replayed as it was: the token is spent.
    const replayed = JSON.parse(retry!.body) as { id: number };
    const again = await (await handler.fetch(new Request(URL_, { method: 'POST', headers: retry!.headers, body: JSON.stringify({ ...replayed, id: 9003 }) }))).json();
    expect(JSON.stringify(again)).toMatch(/used already/);
    expect(world.writes()).toHaveLength(1);
    await client.close();
    await handler.close();
  });

  it.each([
    ['declines', { action: 'decline' }],
    ['declines with the box still checked', { action: 'decline', content: { confirm: true } }],
    ['accepts without confirming', { action: 'accept', content: { confirm: false } }],
    ['accepts with no form content', { action: 'accept' }],
  ] as const)('the user %s in the real round: refused, nothing written', async (_case, answer) => {
    const world = emulatedClient();
    const handler = createMcpHttpHandler({ client: world.client, allowWrites: true, stateDir: tempDir(), credential: false });
    const client = new McpClient({ name: 'consent', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked += 1;
      return answer;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: (input, init) => handler.fetch(new Request(input, init)) }));
    const preview = await client.callTool({ name: 'deal_create', arguments: DEAL });
    const token = (preview.structuredContent as { commit_token: string }).commit_token;
    const commit = await client.callTool({ name: 'deal_create', arguments: { ...DEAL, commit_token: token } });
    expect(asked).toBe(1);
    expect(commit.isError).toBe(true);
    expect(JSON.stringify(commit.content)).toMatch(/declined; nothing was changed/);
    expect(world.writes()).toEqual([]);
    await client.close();
    await handler.close();
  });
});
