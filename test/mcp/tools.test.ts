import { describe, expect, it } from 'vitest';
import { createMcpServer, TOOL_NAMES } from '../../packages/mcp/src/index.js';
import { effectOf } from '../../packages/mcp/src/tool.js';
import { TOOLS } from '../../packages/mcp/src/tools/index.js';
import { connected, emulatedClient, tempDir } from './support.js';

const READS = ['deal_room_find', 'deal_transactions_list', 'room_ask', 'webhook_list'];
const WRITES = ['deal_create', 'room_create', 'transaction_create', 'transaction_link_room', 'room_documents_upload', 'webhook_create', 'webhook_ping'];
const DESTRUCTIVE = ['webhook_delete', 'webhook_rotate_secret'];
/** What each tool over the service does at most, written here by hand: the table's effects must agree. */
const DOES: Readonly<Record<string, 'read' | 'write' | 'replace' | 'destroy'>> = {
  ...Object.fromEntries(READS.map((name) => [name, 'read'])),
  ...Object.fromEntries(WRITES.map((name) => [name, 'write'])),
  // It overwrites a transaction's room link (only with --allow-destructive, checked against the current link).
  transaction_link_room: 'replace',
  webhook_delete: 'destroy',
  webhook_rotate_secret: 'destroy',
};

async function listed(options: Parameters<typeof connected>[0]) {
  const t = await connected(options);
  try {
    return (await t.mcp.listTools()).tools;
  } finally {
    await t.close();
  }
}

describe('createMcpServer lists', () => {
  it('at most 15 snake_case tools in all', () => {
    expect(TOOL_NAMES.length).toBeLessThanOrEqual(15);
    for (const name of TOOL_NAMES) expect(name).toMatch(/^[a-z]+(_[a-z]+)+$/);
  });

  it('read-only tools only, by default', async () => {
    expect((await listed({})).map((tool) => tool.name).sort()).toEqual([...READS].sort());
  });

  it('write tools with allowWrites, destructive ones only with allowDestructive as well', async () => {
    const roots = { uploadRoots: [tempDir()] };
    expect((await listed({ allowWrites: true, ...roots })).map((tool) => tool.name).sort()).toEqual([...READS, ...WRITES].sort());
    expect((await listed({ allowWrites: true, allowDestructive: true, ...roots })).map((tool) => tool.name).sort()).toEqual([...READS, ...WRITES, ...DESTRUCTIVE].sort());
  });

  it('allowDestructive without allowWrites is refused, naming the fix', () => {
    expect(() => createMcpServer({ client: emulatedClient().client, allowDestructive: true })).toThrow(/\[svc-sdk\] allowDestructive .* allowWrites: true/);
  });

  it('tools / excludeTools filter the list; an unknown name or a write without allowWrites is refused', async () => {
    expect((await listed({ tools: ['room_ask', 'webhook_list'] })).map((tool) => tool.name)).toEqual(['room_ask', 'webhook_list']);
    expect((await listed({ excludeTools: ['room_ask'] })).map((tool) => tool.name)).not.toContain('room_ask');
    const client = emulatedClient().client;
    expect(() => createMcpServer({ client, tools: ['deal_delete'] })).toThrow(/\[svc-sdk\] tools: no tool is named "deal_delete": choose from deal_room_find/);
    expect(() => createMcpServer({ client, tools: ['deal_create'] })).toThrow(/deal_create changes state: pass allowWrites/);
    expect(() => createMcpServer({ client, allowWrites: true, tools: ['webhook_delete'] })).toThrow(/webhook_delete is destructive: pass allowWrites and allowDestructive/);
  });

  it('every tool with a title, a description, input and output schemas and all four annotations set explicitly', async () => {
    for (const tool of await listed({ allowWrites: true, allowDestructive: true })) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      const annotations = tool.annotations ?? {};
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) expect(typeof annotations[hint], `${tool.name} ${hint}`).toBe('boolean');
    }
  });

  it('annotations derived from the operations: reads read-only, writes not, deletes / rotations / link replacements destructive', async () => {
    const tools = Object.fromEntries((await listed({ allowWrites: true, allowDestructive: true, uploadRoots: [tempDir()] })).map((tool) => [tool.name, tool.annotations!]));
    for (const name of READS) expect(tools[name], name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    for (const name of WRITES.filter((name) => name !== 'transaction_link_room')) expect(tools[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    for (const name of [...DESTRUCTIVE, 'transaction_link_room']) expect(tools[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools['deal_create']).toMatchObject({ idempotentHint: false, openWorldHint: true });
  });

  it("every operation's effect matches what its tool does: a read tool never needs --allow-writes, a destroy tool needs --allow-destructive", async () => {
    const roots = { uploadRoots: [tempDir()] };
    const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);
    const byDefault = names(await listed(roots));
    const withWrites = names(await listed({ allowWrites: true, ...roots }));
    const all = Object.fromEntries((await listed({ allowWrites: true, allowDestructive: true, ...roots })).map((tool) => [tool.name, tool.annotations!]));
    const service = TOOLS.filter((tool) => tool.needs !== 'actions');
    expect(Object.fromEntries(service.map((tool) => [tool.name, effectOf(tool)]))).toEqual(DOES);
    for (const tool of service) {
      const does = DOES[tool.name]!;
      // A tool that changes something previews first: a write tool; one that reads answers at once.
      expect(tool.kind, tool.name).toBe(does === 'read' ? 'read' : 'write');
      expect(byDefault.includes(tool.name), tool.name).toBe(does === 'read');
      expect(withWrites.includes(tool.name), tool.name).toBe(does !== 'destroy');
      expect(all[tool.name], tool.name).toMatchObject({ readOnlyHint: does === 'read', destructiveHint: does === 'replace' || does === 'destroy' });
    }
  });
});

describe('what the server says of itself', () => {
  it('its name, title and version, the tools and logging capabilities, the SDK version it is built on', async () => {
    const t = await connected();
    const { VERSION } = await import('../../src/core/version.js');
    expect(t.mcp.getServerVersion()).toMatchObject({ name: 'svc-sdk', title: 'svc deals, data rooms and webhooks', version: VERSION });
    expect(t.mcp.getServerCapabilities()).toMatchObject({ tools: {}, logging: {} });
    expect(t.mcp.getInstructions()).toMatch(/^Tools of a deal \/ data-room \/ webhook service\.\nEvery tool that changes something works in two calls/);
    await t.close();
  });

  it('options that contradict each other or name no tool are refused when the server is made', () => {
    const client = emulatedClient().client;
    expect(() => createMcpServer({ client, allowDestructive: true, stateDir: tempDir() })).toThrow('[svc-sdk] allowDestructive lists destructive write tools: pass allowWrites: true as well');
    expect(() => createMcpServer({ client, excludeTools: ['deal_delete'], stateDir: tempDir() })).toThrow(/^\[svc-sdk\] excludeTools: no tool is named "deal_delete": choose from deal_room_find, deal_transactions_list, /);
  });
});
