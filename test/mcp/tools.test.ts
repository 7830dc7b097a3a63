import { describe, expect, it } from 'vitest';
import { createMcpServer, TOOL_NAMES } from '../../packages/mcp/src/index.js';
import { connected, emulatedClient } from './support.js';

const READS = ['deal_room_find', 'deal_transactions_list', 'room_ask', 'webhook_list'];
const WRITES = ['deal_create', 'room_create', 'transaction_create', 'transaction_link_room', 'room_documents_upload', 'webhook_create', 'webhook_ping'];
const DESTRUCTIVE = ['webhook_delete', 'webhook_rotate_secret'];

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
    expect((await listed({ allowWrites: true })).map((tool) => tool.name).sort()).toEqual([...READS, ...WRITES].sort());
    expect((await listed({ allowWrites: true, allowDestructive: true })).map((tool) => tool.name).sort()).toEqual([...READS, ...WRITES, ...DESTRUCTIVE].sort());
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
    const tools = Object.fromEntries((await listed({ allowWrites: true, allowDestructive: true })).map((tool) => [tool.name, tool.annotations!]));
    for (const name of READS) expect(tools[name], name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    for (const name of WRITES.filter((name) => name !== 'transaction_link_room')) expect(tools[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    for (const name of [...DESTRUCTIVE, 'transaction_link_room']) expect(tools[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools['deal_create']).toMatchObject({ idempotentHint: false, openWorldHint: true });
  });
});
