import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, storeEveryUpload } from './upload-many-support.js';

// uploadMany's arguments at their edges: refused before anything is opened, read or sent.

const service = useLoopbackServer();
const client = () => new Client({ apiKey: API_KEY, baseUrl: service.url });

describe('documents.uploadMany arguments', () => {
  it.each([
    ['a fraction', 1.5],
    ['past the safe integers', 2 ** 53],
  ])('a room id that is %s is a ValidationError naming roomId', async (_kind, roomId) => {
    await expect(client().documents.uploadMany(roomId, [])).rejects.toMatchObject({ issues: [{ path: ['roomId'], message: 'roomId must be a positive integer id, as the service returned it' }] });
  });

  it('null inputs are a ValidationError naming inputs (not a TypeError)', async () => {
    const call = client().documents.uploadMany(1, null as never);
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toMatchObject({ issues: [{ path: ['inputs'] }] });
  });

  it('a signal aborted already rejects with its reason before the manifest is opened or anything is sent', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'm.jsonl');
    storeEveryUpload(service);
    const reason = new Error('gave up');
    await expect(client().documents.uploadMany(1, join(root, 'tree'), { manifest, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect([existsSync(manifest), existsSync(`${manifest}.lock`), service.requests.length]).toEqual([false, false, 0]);
  });

  it('an input without a filename is its failed, with the whole message and the issue naming it; the others are sent', async () => {
    storeEveryUpload(service);
    const inputs = [{ file: new Blob(['a']), filename: '' }, null, { file: new Blob(['c']), filename: 'c.txt' }, { file: new Blob(['d']) }, { file: new Blob(['e']), filename: 42 }];
    const result = await client().documents.uploadMany(1, inputs as never);
    expect(result.uploaded.map((file) => file.path)).toEqual(['c.txt']);
    expect(result.failed.map(({ error }) => [(error as ValidationError).message, (error as ValidationError).issues.map((issue) => issue.path)])).toEqual(
      [0, 1, 3, 4].map((index) => [
        `[svc-sdk] documents.uploadMany: inputs.${index}.filename: each input must be { file, filename } with a non-empty filename. Nothing was sent.`,
        [['inputs', index, 'filename']],
      ]),
    );
    expect(service.requests).toHaveLength(1);
  });

  it('a manifest inside the folder is neither sent nor listed as failed, nor are its lock and a compaction copy', async () => {
    const root = makeTree({ 'a.txt': 'a', 'm.jsonl.compact': 'left by a kill' });
    storeEveryUpload(service);
    const result = await client().documents.uploadMany(1, join(root, 'tree'), { manifest: join(root, 'tree', 'm.jsonl'), concurrency: 1 });
    expect([result.uploaded.map((file) => file.path), result.failed.map((file) => file.path), result.unknown, result.notStarted]).toEqual([['a.txt'], [], [], []]);
    expect(service.requests).toHaveLength(1);
  });
});
