import { describe, expect, it } from 'vitest';
// The web entry alone: no file system is registered in this file's module graph.
import { Client, SvcError } from '../../src/index.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';

// documents.uploadMany on the web build (browsers, workerd): iterables work; a directory or a
// manifest, which need a file system, are refused before anything is read or sent.

const service = useLoopbackServer();

describe('documents.uploadMany on the web build', () => {
  it.each([
    ['a directory path', (client: Client) => client.documents.uploadMany(1, '/tmp'), 'a directory path needs Node'],
    ['a manifest', (client: Client) => client.documents.uploadMany(1, [{ file: new Blob(['a']), filename: 'a.txt' }], { manifest: 'm.jsonl' }), 'a manifest needs Node'],
  ])('refuses %s with an SvcError naming what to pass instead, nothing sent', async (_kind, call, words) => {
    const client = new Client({ apiKey: 'vdr_web', baseUrl: service.url });
    const result = call(client);
    await expect(result).rejects.toBeInstanceOf(SvcError);
    await expect(result).rejects.toThrow(`[svc-sdk] documents.uploadMany: ${words}: this runtime loaded the web build of svc-sdk, which has no file system. Pass an iterable of { file, filename } and no manifest instead.`);
    expect(service.requests).toHaveLength(0);
  });

  it('uploads an iterable of Blobs', async () => {
    service.handle((_request, response, index) => sendJson(response, 201, { success: true, data: { id: index + 1, room_id: 1, original_filename: 'a.txt', size: 1, status: 'stored' } }));
    const client = new Client({ apiKey: 'vdr_web', baseUrl: service.url });
    const result = await client.documents.uploadMany(1, [{ file: new Blob(['a']), filename: 'a.txt' }]);
    expect(result.uploaded.map((file) => file.document.id)).toEqual([1]);
    expect(result.notes).toEqual([]);
  });
});
