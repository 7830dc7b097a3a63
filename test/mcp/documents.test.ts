// room_documents_upload's edges: the size cap (refused before reading), a folder with nothing
// sendable, long listings, a link retargeted between preview and commit, a special file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES } from '../../packages/mcp/src/tools/documents.js';
import { connected, structured, tempDir, text } from './support.js';

const upload = (t: Awaited<ReturnType<typeof connected>>, paths: string[], extra: Record<string, unknown> = {}) =>
  t.mcp.callTool({ name: 'room_documents_upload', arguments: { room_id: 1, paths, ...extra } });

describe('room_documents_upload', () => {
  it('more than MAX_UPLOAD_BYTES in all is refused at the preview, before the file is read (a sparse file of that size)', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'small.txt'), 'x');
    writeFileSync(join(root, 'huge.bin'), '');
    truncateSync(join(root, 'huge.bin'), MAX_UPLOAD_BYTES);
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const started = process.memoryUsage().rss;
    const result = await upload(t, ['small.txt', 'huge.bin']);
    expect(text(result)).toMatch(new RegExp(`more than ${MAX_UPLOAD_BYTES} bytes in all \\(at ".*huge\\.bin"\\), over what one call sends`));
    expect(process.memoryUsage().rss - started).toBeLessThan(MAX_UPLOAD_BYTES / 2);
    // Exactly the cap passes the count (only counted here, on the sparse file: its bytes are zeros).
    expect(MAX_UPLOAD_BYTES).toBe(256 * 1024 * 1024);
    await t.close();
  });

  it('a folder holding only what the policy leaves out: nothing to upload, saying why', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'd'));
    writeFileSync(join(root, 'd', '.env'), 'K=V');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    expect(text(await upload(t, ['d']))).toMatch(/nothing to upload \(1 file\(s\) left out: ".*\.env" is an \.env file/);
    mkdirSync(join(root, 'empty'));
    expect(text(await upload(t, ['empty']))).toMatch(/paths: nothing to upload$/);
    await t.close();
  });

  it('a long listing shows 25 files and says how many more the digests cover', async () => {
    const root = tempDir();
    for (let index = 0; index < 30; index++) writeFileSync(join(root, `f${String(index).padStart(2, '0')}.txt`), `${index}`);
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const { preview } = structured(await upload(t, ['.']));
    expect(preview.files).toHaveLength(25);
    expect(preview.files[24].path).toBe(join(root, 'f24.txt'));
    expect(preview.total_files).toBe(30);
    expect(preview.total_bytes).toBe(10 + 20 * 2);
    expect(preview.hint).toBe('5 more file(s) not listed; entries counts them all and their digests cover them');
    await t.close();
  });

  it('a link retargeted between preview and commit: refused, naming where it leads now', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    writeFileSync(join(root, 'a', 'x.txt'), 'same');
    writeFileSync(join(root, 'b', 'x.txt'), 'same');
    symlinkSync(join(root, 'a'), join(root, 'current'));
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const args = { room_id: 1, paths: ['current'] };
    const token = structured(await t.mcp.callTool({ name: 'room_documents_upload', arguments: args })).commit_token;
    rmSync(join(root, 'current'));
    symlinkSync(join(root, 'b'), join(root, 'current'));
    const result = await t.mcp.callTool({ name: 'room_documents_upload', arguments: { ...args, commit_token: token } });
    expect(text(result)).toMatch(/"current" now resolves to ".*\/b", not ".*\/a"/);
    expect(t.writes()).toEqual([]);
    await t.close();
  });

  it('a path that is neither a file nor a folder (a FIFO) is refused at the preview', async () => {
    const root = tempDir();
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    expect(text(await upload(t, ['pipe']))).toMatch(/"[^"]*pipe" is not a regular file or folder/);
    await t.close();
  });

  it('with two roots, a relative path resolves against the first; an absolute path in the second is inside', async () => {
    const [first, second] = [tempDir(), tempDir()];
    writeFileSync(join(first, 'one.txt'), '1');
    writeFileSync(join(second, 'two.txt'), '2');
    const t = await connected({ allowWrites: true, uploadRoots: [first, second] });
    expect((await upload(t, ['one.txt'])).isError).toBeFalsy();
    expect(text(await upload(t, ['two.txt']))).toMatch(/does not exist/);
    expect((await upload(t, [join(second, 'two.txt')])).isError).toBeFalsy();
    await t.close();
  });
});
