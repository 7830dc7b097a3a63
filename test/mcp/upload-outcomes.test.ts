// room_documents_upload when the service answers file by file differently: one stored, one refused,
// one whose fate is unknown (the connection dropped after the bytes went). The result names each
// by its local path, and its text counts them. The service is msw; the server is reached through the official client.
import { Client as McpClient, InMemoryTransport } from '@modelcontextprotocol/client';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/client.js';
import { createMcpServer } from '../../packages/mcp/src/index.js';
import { DATA_NOTE } from '../../packages/mcp/src/untrusted.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';
import { structured, tempDir, text } from './support.js';

const service = useMockService();

describe('room_documents_upload reports each file as the service answered it', () => {
  it.each([
    ['a folder (with its manifest)', (root: string) => ({ paths: ['docs'], local: (name: string) => join(root, 'docs', name) })],
    ['files named one by one', (root: string) => ({ paths: ['docs/ok.txt', 'docs/refused.txt', 'docs/lost.txt'], local: (name: string) => join(root, 'docs', name) })],
  ])('%s: stored, failed with the reason, unknown', async (_case, shape) => {
    const root = tempDir();
    mkdirSync(join(root, 'docs'));
    for (const name of ['ok.txt', 'refused.txt', 'lost.txt']) writeFileSync(join(root, 'docs', name), name);
    service.use(
      http.post(`${BASE_URL}/api/v1/rooms/7/documents`, async ({ request }) => {
        const file = (await request.formData()).get('file') as File;
        if (file.name === 'refused.txt') return HttpResponse.json({ detail: 'file type not allowed' }, { status: 422 });
        if (file.name === 'lost.txt') return HttpResponse.error();
        return HttpResponse.json({ id: 41, original_filename: file.name }, { status: 201 });
      }),
    );
    const server = createMcpServer({ client: new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 }), allowWrites: true, uploadRoots: [root], stateDir: tempDir() });
    const mcp = new McpClient({ name: 'outcomes', version: '1' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await mcp.connect(clientSide);
    const { paths, local } = shape(root);
    const preview = structured(await mcp.callTool({ name: 'room_documents_upload', arguments: { room_id: 7, paths } }));
    const commit = await mcp.callTool({ name: 'room_documents_upload', arguments: { room_id: 7, paths, commit_token: preview.commit_token } });
    const result = structured(commit).result;
    expect(result.uploaded).toEqual([{ path: local('ok.txt'), document_id: 41 }]);
    expect(result.failed).toEqual([expect.stringMatching(new RegExp(`^${local('refused.txt').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*422`))]);
    expect(result.unknown).toEqual([local('lost.txt')]);
    expect(result.skipped).toEqual([]);
    expect(text(commit)).toBe(`Uploaded 1, skipped 0 (already stored), failed 1, unknown 1.\n${DATA_NOTE}`);
    await mcp.close();
    await server.close();
  });
});
