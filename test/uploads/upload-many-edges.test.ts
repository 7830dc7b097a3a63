import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { useLoopbackServer } from '../support/loopback.js';
import { API_KEY, makeTree, sha256, storeEveryUpload } from './upload-many-support.js';

// uploadMany at the edges the file system itself makes: files whose size the kernel does not know,
// a lock that vanishes while it is waited for.

const service = useLoopbackServer();

describe('documents.uploadMany: files that are not what their size says', () => {
  // /proc files list as regular files of 0 bytes, yet read as text: a file that "grew" between its
  // check and its read, deterministically.
  const procFolder = '/proc/sys/kernel/random';
  it.runIf(process.platform === 'linux' && existsSync(procFolder))('a file listed empty that reads as more is its failed (changed size while read): nothing is sent', async () => {
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, procFolder, { concurrency: 1 });
    const names = readdirSync(procFolder).sort();
    expect(result.failed.map(({ path, error }) => [path, error instanceof ValidationError, (error as Error).message])).toEqual(
      names.map((name) => [
        name,
        true,
        `[svc-sdk] documents.uploadMany: inputs.${name}: "${name}" changed size while it was read (0 → 1 bytes or more): nothing was sent; run again to send it as it is then. Nothing was sent.`,
      ]),
    );
    expect([result.uploaded, service.requests]).toEqual([[], []]);
  });
});

describe('documents.uploadMany: an empty file', () => {
  it('is sent as an empty document and recorded with 0 bytes and the SHA-256 of nothing', async () => {
    const root = makeTree({ 'empty.txt': '' });
    const manifest = join(root, 'm.jsonl');
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const result = await client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    expect([result.uploaded.map((file) => [file.path, file.size, file.sha256]), result.failed]).toEqual([[['empty.txt', 0, sha256('')]], []]);
    expect(service.requests.map((request) => request.body.split('\r\n\r\n')[1]!.startsWith('\r\n--'))).toEqual([true]);
    const last = JSON.parse(readFileSync(manifest, 'utf8').trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ path: 'empty.txt', state: 'uploaded', size: 0, sha256: sha256('') });
  });
});

describe('documents.uploadMany: a lock that vanishes', () => {
  it('an empty lock removed while it is waited for is refused as a run of an unknown process (no TypeError), nothing sent', async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(`${manifest}.lock`, '');
    // The run waits up to a second for an empty lock to be filled in; it goes away meanwhile.
    setTimeout(() => rmSync(`${manifest}.lock`), 300);
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    const call = client.documents.uploadMany(1, join(root, 'tree'), { manifest });
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process unknown (its lock file cannot be read)`);
    expect(service.requests).toHaveLength(0);
  });

  it.runIf(process.platform !== 'win32')("a lock held by a live process of another user (pid 1, whose signals this process may not send: EPERM) is refused, not taken over", async () => {
    const root = makeTree({ 'a.txt': 'a' });
    const manifest = join(root, 'm.jsonl');
    writeFileSync(`${manifest}.lock`, JSON.stringify({ pid: 1, host: hostname() }));
    storeEveryUpload(service);
    const client = new Client({ apiKey: API_KEY, baseUrl: service.url });
    await expect(client.documents.uploadMany(1, join(root, 'tree'), { manifest })).rejects.toThrow(`[svc-sdk] manifest ${manifest} is in use by process 1 on ${hostname()}`);
    expect(service.requests).toHaveLength(0);
  });
});
