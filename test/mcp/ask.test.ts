// room_ask against a service that says more than a model should read: more citations than the
// tool returns, passages and answers longer than its cut, citations missing fields, no answer.
// The service is msw (the remote service only); the MCP server is reached through the official client.
import { Client as McpClient, InMemoryTransport } from '@modelcontextprotocol/client';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/client.js';
import { createMcpServer } from '../../packages/mcp/src/index.js';
import { DATA_NOTE } from '../../packages/mcp/src/untrusted.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';
import { structured, tempDir, text } from './support.js';

const service = useMockService();

/** The server on a client of the msw service, its search answering `body`; returns room_ask's result. */
async function ask(body: Record<string, unknown>) {
  service.use(http.post(`${BASE_URL}/api/v1/rooms/7/search`, () => HttpResponse.json(body)));
  const server = createMcpServer({ client: new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 }), stateDir: tempDir() });
  const mcp = new McpClient({ name: 'ask', version: '1' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await mcp.connect(clientSide);
  const result = await mcp.callTool({ name: 'room_ask', arguments: { room_id: 7, question: 'q?' } });
  await mcp.close();
  await server.close();
  return result;
}

describe('room_ask keeps what the model reads short', () => {
  it('returns 8 citations of 10 and says how many it left out', async () => {
    const citations = Array.from({ length: 10 }, (_, index) => ({ document_id: index + 1, filename: `f${index}.txt`, passage: `p${index}` }));
    const result = structured(await ask({ answer: 'yes', citations }));
    expect(result.citations).toEqual(citations.slice(0, 8));
    expect(result.hint).toBe('2 more citation(s) left out: ask a narrower question');
    const eight = structured(await ask({ answer: 'yes', citations: citations.slice(0, 8) }));
    expect(eight.citations).toHaveLength(8);
    expect(eight).not.toHaveProperty('hint');
  });

  it('names every source, one after the other', async () => {
    const result = await ask({ answer: 'yes', citations: [{ document_id: 1, filename: 'a.txt', passage: 'x' }, { document_id: 2, filename: 'b.txt', passage: 'y' }] });
    expect(text(result)).toBe(`Answer: "yes"\nSources: "a.txt" (document 1): "x"; "b.txt" (document 2): "y"\n${DATA_NOTE}`);
  });

  it('cuts a passage over 600 characters and an answer over 1 200 to that length, ending in an ellipsis; at the length they are whole', async () => {
    const result = structured(await ask({ answer: 'a'.repeat(1201), citations: [{ document_id: 1, filename: 'f', passage: 'p'.repeat(601) }, { document_id: 2, filename: 'g', passage: 'q'.repeat(600) }] }));
    expect(result.answer).toBe(`${'a'.repeat(1199)}…`);
    expect(result.citations[0].passage).toBe(`${'p'.repeat(599)}…`);
    expect(result.citations[1].passage).toBe('q'.repeat(600));
    expect(structured(await ask({ answer: 'a'.repeat(1200), citations: [] })).answer).toBe('a'.repeat(1200));
  });

  it('a citation without its fields is document 0, no file name, no passage; no answer (null, or none) is found: false', async () => {
    const result = structured(await ask({ answer: null, citations: [{}] }));
    expect(result).toEqual({ answer: '', found: false, citations: [{ document_id: 0, filename: '', passage: '' }] });
    const bare = await ask({});
    expect(structured(bare)).toEqual({ answer: '', found: false, citations: [] });
    expect(text(bare)).toMatch(/^The documents hold no answer to that question\./);
  });
});
