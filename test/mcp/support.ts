// Shared set-up of the MCP tests: the emulator, a svc Client on it that records every request it
// sends, and the MCP server under test reached through the official v2 client, in process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as McpClient, InMemoryTransport } from '@modelcontextprotocol/client';
import { Client } from '../../src/client.js';
import { createMcpServer, type McpServerOptions } from '../../packages/mcp/src/index.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';

export const API_KEY = 'vdr_mcp_test_key_0123456789';

/** One request the svc Client sent to the emulator. */
export interface Sent {
  method: string;
  path: string;
  query: string;
}

/** The emulator and a client on it that records what it sends (no network, no msw). */
export function emulatedClient(): { emulator: Emulator; client: Client; sent: Sent[]; writes: () => Sent[] } {
  const emulator = createEmulator({ apiKey: API_KEY, deliveryDelayMs: 60_000 });
  const sent: Sent[] = [];
  const client = new Client({
    apiKey: API_KEY,
    baseUrl: 'https://svc.test',
    maxRetries: 0,
    fetch: async (input: Request | string | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      sent.push({ method: request.method, path: url.pathname, query: url.search });
      return emulator.fetch(request);
    },
  });
  // A write is any request but a read or the service's dry run of a deal.
  const writes = () => sent.filter((request) => request.method !== 'GET' && !request.query.includes('ephemeral=true'));
  return { emulator, client, sent, writes };
}

/** A fresh folder for the server's state (webhook secrets, manifests). */
export function tempDir(prefix = 'svc-mcp-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The server with `options` on an emulated client, connected to the official v2 client in process. */
export async function connected(options: McpServerOptions = {}, clientOptions: ConstructorParameters<typeof McpClient>[1] = {}) {
  const world = emulatedClient();
  const stateDir = tempDir();
  const server = createMcpServer({ client: world.client, stateDir, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const mcp = new McpClient({ name: 'svc-sdk-tests', version: '1.0.0' }, clientOptions);
  await server.connect(serverSide);
  await mcp.connect(clientSide);
  return { ...world, server, mcp, stateDir, close: async () => { await mcp.close(); await server.close(); } };
}

/** Structured content of a tool result, typed loosely for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions reach into results of every tool's shape
export function structured(result: unknown): Record<string, any> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  return (result as { structuredContent: Record<string, any> }).structuredContent;
}

/** Text of a tool result's first content block. */
export function text(result: unknown): string {
  return ((result as { content: { type: string; text?: string }[] }).content[0]?.text ?? '') as string;
}
