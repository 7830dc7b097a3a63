import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, sha256, storeEveryUpload } from './upload-many-support.js';

// uploadMany and its manifest are loaded on first use: each test here loads the SDK afresh, so their
// module-level constants (the record states, the read and line sizes, how a record starts, the
// operation's name) run, and are checked, in the test that relies on them.

const service = useLoopbackServer();

beforeEach(() => {
  vi.resetModules();
});

async function sdk() {
  return import('../../src/index.node.js');
}

const recordOf = (fields: Record<string, unknown>) => `${JSON.stringify({ ...fields, room: 1, origin: service.url })}\n`;

describe('documents.uploadMany, loaded by the test', () => {
  it('reads a manifest of every state, over 64 KiB of lines, on open: uploaded → skipped, sending and unknown → unknown, failed → sent', async () => {
    const content = { 'a.txt': 'alpha', 'b.txt': 'bravo', 'c.txt': 'charlie', 'd.txt': 'delta' };
    const root = makeTree(content);
    const manifest = join(root, 'm.jsonl');
    // Records of files gone from the folder first: the records that count start past the first 64 KiB read.
    let lines = '';
    for (let index = 0; lines.length < 200 * 1024; index += 1) lines += recordOf({ path: `gone/${index}.txt`, state: 'failed', size: 1 });
    lines += recordOf({ path: 'a.txt', state: 'uploaded', size: 5, sha256: sha256('alpha'), documentId: 41 });
    lines += recordOf({ path: 'b.txt', state: 'sending', size: 5, sha256: sha256('bravo') });
    lines += recordOf({ path: 'c.txt', state: 'unknown', size: 7, sha256: sha256('charlie') });
    lines += recordOf({ path: 'd.txt', state: 'failed', size: 5, sha256: sha256('delta') });
    writeFileSync(manifest, lines);
    storeEveryUpload(service);
    const { Client } = await sdk();
    const result = await new Client({ apiKey: API_KEY, baseUrl: service.url }).documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect({
      uploaded: result.uploaded.map((file) => file.path),
      skipped: result.skipped.map((file) => [file.path, file.documentId]),
      unknown: result.unknown.map((file) => file.path),
      failed: result.failed,
    }).toEqual({ uploaded: ['d.txt'], skipped: [['a.txt', 41]], unknown: ['b.txt', 'c.txt'], failed: [] });
    expect(service.requests).toHaveLength(1);
  });

  it('takes a first line cut short by a crash as torn (the file emptied), and refuses one line of someone else\'s, untouched', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const torn = join(root, 'torn.jsonl');
    const notes = join(root, 'notes.txt');
    writeFileSync(torn, '{"path":"a.t');
    writeFileSync(notes, 'a note');
    storeEveryUpload(service);
    const { Client, ValidationError } = await sdk();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest: torn });
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(readFileSync(torn, 'utf8').split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { state: string }).state)).toEqual(['sending', 'uploaded']);
    const refused = client.documents.uploadMany(1, join(root, 'tree'), { manifest: notes });
    await expect(refused).rejects.toBeInstanceOf(ValidationError);
    await expect(refused).rejects.toThrow(
      `[svc-sdk] documents.uploadMany: manifest "${notes}" is not a manifest of svc-sdk (its first line is not a record): nothing was written to it; pass another path, or a new file. Nothing was sent.`,
    );
    expect(readFileSync(notes, 'utf8')).toBe('a note');
  });

  it('names itself in a refused argument and in an onProgress that throws', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    storeEveryUpload(service);
    const { Client } = await sdk();
    const warn = vi.fn();
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url, logger: { debug() {}, info() {}, warn, error() {} } });
    await expect(client.documents.uploadMany(0, join(root, 'tree'))).rejects.toThrow(
      '[svc-sdk] documents.uploadMany: roomId must be a positive integer id, as the service returned it. Nothing was sent.',
    );
    const result = await client.documents.uploadMany(1, join(root, 'tree'), {
      onProgress: () => {
        throw new Error('bar broke');
      },
    });
    expect(result.uploaded.map((file) => file.path)).toEqual(['a.txt']);
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      '[svc-sdk] documents.uploadMany: onProgress threw (Error: bar broke); the upload goes on, and further errors of it are not reported',
    ]);
  });
});
