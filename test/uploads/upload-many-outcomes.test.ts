import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, Client, InternalServerError, NotFoundError, PermissionDeniedError, ValidationError } from '../../src/index.node.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree } from './upload-many-support.js';

// The outcome rule (src/uploads/outcome.ts) at the wire: a loopback service that reads the whole
// body and stores the document, then answers an error, and one that answers before the body ended.

const service = useLoopbackServer();

const documentOf = (id: number) => ({ success: true, data: { id, room_id: 1, original_filename: `f${id}`, size: 1, status: 'stored' } });

describe('documents.uploadMany outcomes at the wire', () => {
  it.each([500, 502, 504])('a %i after the whole body was read (the service stored it) is unknown, and a rerun does not send it again', async (status) => {
    const root = makeTree({ 'a.txt': 'alpha', 'b.txt': 'bravo' });
    const manifest = join(root, 'manifest.jsonl');
    const stored: string[] = [];
    // Stores every body it read whole, then answers `status` for b.txt: a gateway that lost the answer.
    service.handle((request, response) => {
      stored.push(request.body.includes('filename="a.txt"') ? 'a.txt' : 'b.txt');
      if (request.body.includes('filename="b.txt"')) sendJson(response, status, { error: 'lost after storing' });
      else sendJson(response, 201, documentOf(stored.length));
    });
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0 });
    const first = await client.documents.uploadMany(1, join(root, 'tree'), { manifest, concurrency: 1 });
    expect(first.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(first.failed).toEqual([]);
    expect(first.unknown.map((file) => [file.path, (file.error as InternalServerError).status])).toEqual([['b.txt', status]]);
    const rerun = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(rerun.unknown.map((file) => file.path)).toEqual(['b.txt']);
    expect(rerun.skipped.map((file) => file.path)).toEqual(['a.txt']);
    // Never a document twice: the rerun sent nothing.
    expect(stored).toEqual(['a.txt', 'b.txt']);
  });

  it('a 4xx after the whole body (the service refused it) is failed, and the rerun sends it', async () => {
    const root = makeTree({ 'a.txt': 'alpha' });
    const manifest = join(root, 'manifest.jsonl');
    service.handle((request, response, index) => (index === 0 ? sendJson(response, 422, { error: 'not now' }) : sendJson(response, 201, documentOf(1))));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const first = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(first.failed.map((file) => file.path)).toEqual(['a.txt']);
    expect(first.stopped).toBeUndefined();
    const rerun = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect(rerun.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(service.requests).toHaveLength(2);
  });

  it.each([
    ['a 500', '500 Internal Server Error', '{"error":"no"}', 'failed'],
    // A 2xx says the document is stored, early or not: its answer unreadable, it may well be.
    ['a 201 with an unreadable document', '201 Created', '{"data":{"id":"seven"}}', 'unknown'],
  ])('%s answered before the body ended: the 500 is failed (never the whole document), the 201 unknown', async (_kind, status, body, outcome) => {
    const root = makeTree({ 'big.bin': new Uint8Array(8 * 1024 * 1024).fill(1) });
    const manifest = join(root, 'manifest.jsonl');
    // A raw server: answers at the first bytes of the request and closes, the body left unread.
    const early = createServer((socket) => {
      socket.once('data', () => {
        socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => early.listen(0, '127.0.0.1', resolve));
    try {
      const port = (early.address() as { port: number }).port;
      const client = new Client({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
      const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
      expect(result[outcome as 'failed' | 'unknown'].map((file) => file.path)).toEqual(['big.bin']);
      expect(result.uploaded.length + result.failed.length + result.unknown.length).toBe(1);
    } finally {
      await new Promise((resolve) => early.close(resolve));
    }
  });

  it('a connection refused is failed: nothing was sent', async () => {
    const root = makeTree({ 'a.txt': 'alpha' });
    const client = new Client({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    const result = await client.documents.uploadMany(1, join(root, 'tree'));
    expect(result.failed.map((file) => file.path)).toEqual(['a.txt']);
    expect(result.unknown).toEqual([]);
  });

  it.each([
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
  ])('a %i stops the run at once: no other file is sent, the rest notStarted, the reason said once', async (status, ErrorClass) => {
    const root = makeTree(Object.fromEntries(Array.from({ length: 6 }, (_, index) => [`f${index}.txt`, `file ${index}`])));
    service.handle((_request, response) => sendJson(response, status, { error: 'no such room' }));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { concurrency: 2 });
    // The two started at once both get the answer; nothing after them is sent.
    expect(service.requests.length).toBe(2);
    expect(result.failed.map((file) => file.path)).toEqual(['f0.txt', 'f1.txt']);
    expect(result.failed[0]!.error).toBeInstanceOf(ErrorClass);
    expect(result.notStarted.map((file) => file.path)).toEqual(['f2.txt', 'f3.txt', 'f4.txt', 'f5.txt']);
    expect(result.stopped).toMatchObject({ reason: 'fatal', error: expect.any(ErrorClass) });
    expect(result.stopped!.message).toMatch(/^\[svc-sdk\] documents\.uploadMany: stopped at the first refusal that every file would get \(.*\): check the room id and the API key$/);
  });

  it('other failures do not stop the run unless stopOnError', async () => {
    const root = makeTree({ 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
    service.handle((_request, response, index) => (index === 0 ? sendJson(response, 409, { error: 'conflict' }) : sendJson(response, 201, documentOf(index))));
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { concurrency: 1 });
    expect(result.failed.map((file) => file.path)).toEqual(['a.txt']);
    expect(result.uploaded.map((file) => file.path)).toEqual(['b.txt', 'c.txt']);
    expect(result.stopped).toBeUndefined();
  });

  it('stopSignal that is not an AbortSignal is a ValidationError naming it', async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, [], { stopSignal: {} as AbortSignal })).rejects.toThrow('stopSignal must be an AbortSignal (AbortController.signal)');
  });

  it.each([
    ['inputs', 42, {}, 'inputs must be a directory path, or an iterable or async iterable of { file, filename }'],
    ['inputs', {}, {}, 'inputs must be a directory path, or an iterable or async iterable of { file, filename }'],
    ['manifest', [], { manifest: '' }, 'manifest must be the path of a file (created when missing)'],
    ['manifest', [], { manifest: 42 }, 'manifest must be the path of a file (created when missing)'],
    ['retryUnknown', [], { retryUnknown: true }, 'retryUnknown needs a manifest: without one no earlier outcome is known to act on; pass the manifest of the earlier run'],
    ['stopSignal', [], { stopSignal: {} }, 'stopSignal must be an AbortSignal (AbortController.signal)'],
  ])('a bad %s (%j, %j) is a ValidationError whose issue names the field', async (field, inputs, options, message) => {
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, inputs as never, options as never)).rejects.toMatchObject({ issues: [{ path: [field], message }] });
  });

  it('concurrency 64 is the most allowed', async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, [], { concurrency: 64 })).resolves.toMatchObject({ uploaded: [], notStarted: [] });
    await expect(client.documents.uploadMany(1, [], { concurrency: 65 })).rejects.toMatchObject({ issues: [{ path: ['concurrency'] }] });
  });

  it('retryUnknown without a manifest is a ValidationError, nothing sent', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const call = client.documents.uploadMany(1, join(root, 'tree'), { retryUnknown: true });
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow('[svc-sdk] documents.uploadMany: retryUnknown needs a manifest');
    expect(service.requests).toHaveLength(0);
  });
});
