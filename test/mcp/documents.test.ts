// room_documents_upload's edges: the size cap (refused before reading), a folder with nothing
// sendable, long listings, a link retargeted between preview and commit, a special file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { MAX_UPLOAD_BYTES } from '../../packages/mcp/src/tools/documents.js';
import { connected, structured, tempDir, text } from './support.js';

const upload = (t: Awaited<ReturnType<typeof connected>>, paths: string[], extra: Record<string, unknown> = {}) =>
  t.mcp.callTool({ name: 'room_documents_upload', arguments: { room_id: 1, paths, ...extra } });

/** A unix socket listening at `path`: a file system entry no open() reads (ENXIO). */
const listening = (path: string) => new Promise<Server>((resolve) => { const server = createServer().listen(path, () => resolve(server)); });

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
    expect(MAX_UPLOAD_BYTES).toBe(256 * 1024 * 1024);
    await t.close();
  });

  it('exactly MAX_UPLOAD_BYTES in all passes the preview (a sparse file one byte short, and one byte)', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'small.txt'), 'x');
    writeFileSync(join(root, 'huge.bin'), '');
    truncateSync(join(root, 'huge.bin'), MAX_UPLOAD_BYTES - 1);
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const result = await upload(t, ['small.txt', 'huge.bin']);
    expect(result.isError, text(result)).toBeFalsy();
    expect(structured(result).preview.total_bytes).toBe(MAX_UPLOAD_BYTES);
    await t.close();
    rmSync(root, { recursive: true });
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

  it('a credential folder named itself is refused outright as a folder (not left out file by file), nothing read', async () => {
    const root = tempDir();
    mkdirSync(join(root, '.ssh'));
    writeFileSync(join(root, '.ssh', 'notes.txt'), 'x');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    expect(text(await upload(t, ['.ssh']))).toMatch(/^\[svc-sdk\] room_documents_upload: paths: "[^"]*\/\.ssh\/" is an SSH folder \(\.ssh\) \(upload rule "ssh"\): not sent\./);
    await t.close();
  });

  it('a file in a folder whose name is not UTF-8 is left out as unreadable, saying why; the other files go on', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'd'));
    writeFileSync(join(root, 'd', 'ok.txt'), 'fine');
    // Legal on Linux: a name of bytes that are not UTF-8 cannot be a document's name.
    writeFileSync(Buffer.concat([Buffer.from(join(root, 'd', 'bad-')), Buffer.from([0xff])]), 'x');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const preview = structured(await upload(t, ['d'])).preview;
    expect(preview.files.map((file: { path: string }) => file.path)).toEqual([join(root, 'd', 'ok.txt')]);
    // Shown escaped (\\xff), and its backslash escaped again as a counterparty field is.
    const shown = String.raw`bad-\\xff`;
    expect(preview.excluded).toEqual([{ path: join(root, 'd', shown), rule: 'unreadable', message: `"${join(root, 'd', shown)}" cannot be read or named: [svc-sdk] documents.uploadMany: inputs.${shown}: the file name "${shown}" is not UTF-8, so it cannot be sent as a document's name: rename the file and run again. Nothing was sent.` }]);
    await t.close();
  });

  it('two single files: the preview names the operation and both paths, the commit sends them with progress', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.txt'), 'alpha');
    writeFileSync(join(root, 'b.zzq'), 'beta');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const { id: roomId } = await t.client.rooms.create({ name: 'R', room_type: 'company_investment' });
    // Each document's type as the commit hands it to the SDK: from its name, none for a name no type is known for.
    const types: string[] = [];
    const uploadMany = t.client.documents.uploadMany.bind(t.client.documents);
    t.client.documents.uploadMany = ((room: number, inputs: { file: File }[], options: object) => (types.push(...inputs.map((input) => input.file.type)), uploadMany(room, inputs as never, options as never))) as never;
    const shown = structured(await upload(t, ['a.txt', 'b.zzq'], { room_id: roomId }));
    expect(shown.preview.operation).toBe('documents.uploadMany');
    expect(shown.preview.excluded).toEqual([]);
    expect(shown.next_step).toMatch(new RegExp(`^To upload "a\\.txt", "b\\.zzq" to room ${roomId}, show this preview`));
    const progress: number[] = [];
    const commit = await t.mcp.callTool({ name: 'room_documents_upload', arguments: { room_id: roomId, paths: ['a.txt', 'b.zzq'], commit_token: shown.commit_token } }, { onprogress: (update) => progress.push(update.progress) });
    expect(structured(commit).result.uploaded.map((file: { path: string }) => file.path).sort()).toEqual([join(root, 'a.txt'), join(root, 'b.zzq')]);
    expect(types).toEqual(['text/plain', '']);
    expect(progress.length).toBeGreaterThan(0);
    await t.close();
  });

  it('progress is the bytes sent of the run\'s bytes with "n/m files", at most every 100 ms, and always when the last file settles', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.txt'), 'alpha');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const { id: roomId } = await t.client.rooms.create({ name: 'R', room_type: 'company_investment' });
    // The tool's onProgress driven at known times (the reporter reads Date.now once per call); the real run then reports nothing.
    const uploadMany = t.client.documents.uploadMany.bind(t.client.documents);
    t.client.documents.uploadMany = ((room: number, inputs: never, { onProgress, ...options }: { onProgress: (progress: object) => void }) => {
      const at = (now: number, filesDone: number, bytesDone: number) => {
        vi.spyOn(Date, 'now').mockReturnValueOnce(now);
        onProgress({ filesDone, filesTotal: 3, bytesDone, bytesSkipped: 0, bytesTotal: 30, bytesPerSecond: 0, elapsedMs: 0 });
      };
      at(1_000, 0, 0);
      at(1_099, 0, 5); // 99 ms after the last sent: held back
      at(1_100, 1, 10); // 100 ms after: sent
      at(1_150, 2, 20);
      at(1_150, 3, 30); // the last file settled: sent at once
      vi.restoreAllMocks();
      return uploadMany(room, inputs, options as never);
    }) as never;
    const args = { room_id: roomId, paths: ['a.txt'] };
    const shown = structured(await t.mcp.callTool({ name: 'room_documents_upload', arguments: args }));
    const progress: object[] = [];
    const commit = await t.mcp.callTool({ name: 'room_documents_upload', arguments: { ...args, commit_token: shown.commit_token } }, { onprogress: (update) => progress.push(update) });
    expect(commit.isError).toBeFalsy();
    expect(progress).toEqual([
      { progress: 0, total: 30, message: '0/3 files' },
      { progress: 10, total: 30, message: '1/3 files' },
      { progress: 30, total: 30, message: '3/3 files' },
    ]);
    await t.close();
  });

  it("each entry's sha256: a file's own SHA-256; a folder's over each file's name, size and SHA-256 in listing order", async () => {
    const root = tempDir();
    mkdirSync(join(root, 'd', 'sub'), { recursive: true });
    writeFileSync(join(root, 'd', 'one.txt'), 'first');
    writeFileSync(join(root, 'd', 'sub', 'two.txt'), 'second!');
    writeFileSync(join(root, 'single.txt'), 'alone');
    const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const { preview } = structured(await upload(t, ['d', 'single.txt']));
    const inFolder = (preview.files as { path: string; bytes: number; sha256: string }[]).filter((file) => file.path.startsWith(join(root, 'd')));
    expect(inFolder.map((file) => file.path).sort()).toEqual([join(root, 'd', 'one.txt'), join(root, 'd', 'sub', 'two.txt')]);
    const lines = inFolder.map((file) => `${file.path.slice(join(root, 'd').length + 1)}\0${file.bytes}\0${file.sha256}\n`).join('');
    expect(preview.entries).toEqual([
      { path: join(root, 'd'), kind: 'folder', files: 2, bytes: 12, sha256: sha256(lines) },
      { path: join(root, 'single.txt'), kind: 'file', files: 1, bytes: 5, sha256: sha256('alone') },
    ]);
    await t.close();
  });

  it.runIf(process.platform === 'linux')('a preview and its commit leave no file open: every path and file is read through a handle closed after', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'd'));
    for (let index = 0; index < 30; index++) writeFileSync(join(root, 'd', `f${index}.txt`), `${index}`);
    const singles = Array.from({ length: 15 }, (_, index) => `s${index}.txt`);
    for (const name of singles) writeFileSync(join(root, name), name);
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const { id: roomId } = await t.client.rooms.create({ name: 'R', room_type: 'company_investment' });
    const descriptors = () => readdirSync('/proc/self/fd').length;
    const before = descriptors();
    // 16 paths opened, 45 files read, at the preview and again at the commit.
    const args = { room_id: roomId, paths: ['d', ...singles] };
    const shown = structured(await t.mcp.callTool({ name: 'room_documents_upload', arguments: args }));
    expect(descriptors() - before).toBeLessThan(8);
    const commit = await t.mcp.callTool({ name: 'room_documents_upload', arguments: { ...args, commit_token: shown.commit_token } });
    expect(structured(commit).result.uploaded).toHaveLength(45);
    expect(descriptors() - before).toBeLessThan(8);
    await t.close();
  });

  it('a folder\'s manifest is one file per room and folder in the state folder: a folder of the same names and bytes is a run of its own', async () => {
    const root = tempDir();
    for (const folder of ['a', 'b']) {
      mkdirSync(join(root, folder));
      writeFileSync(join(root, folder, 'memo.txt'), 'same memo');
    }
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const rooms = [await t.client.rooms.create({ name: 'A', room_type: 'company_investment' }), await t.client.rooms.create({ name: 'B', room_type: 'company_investment' })];
    const commit = async (roomId: number, folder: string) => {
      const args = { room_id: roomId, paths: [folder] };
      const shown = structured(await t.mcp.callTool({ name: 'room_documents_upload', arguments: args }));
      return structured(await t.mcp.callTool({ name: 'room_documents_upload', arguments: { ...args, commit_token: shown.commit_token } })).result;
    };
    expect((await commit(rooms[0]!.id, 'a')).uploaded).toHaveLength(1);
    expect((await commit(rooms[0]!.id, 'b'))).toMatchObject({ uploaded: [{ path: join(root, 'b', 'memo.txt') }], skipped: [] });
    expect((await commit(rooms[1]!.id, 'a')).uploaded).toHaveLength(1);
    expect((await commit(rooms[0]!.id, 'a'))).toMatchObject({ uploaded: [], skipped: [join(root, 'a', 'memo.txt')] });
    const manifests = readdirSync(join(t.stateDir, 'upload-manifests'));
    expect(manifests).toHaveLength(3);
    for (const name of manifests) expect(name).toMatch(/^[0-9a-f]{32}\.jsonl$/);
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

  it('exactly 25 files need no hint; more than 25 files left out are listed 25, the count says all', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'exact'));
    for (let index = 0; index < 25; index++) writeFileSync(join(root, 'exact', `f${index}.txt`), 'x');
    mkdirSync(join(root, 'keys'));
    writeFileSync(join(root, 'keys', 'readme.txt'), 'x');
    for (let index = 0; index < 30; index++) writeFileSync(join(root, 'keys', `k${index}.pem`), 'x');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const exact = structured(await upload(t, ['exact'])).preview;
    expect(exact.files).toHaveLength(25);
    expect(exact).not.toHaveProperty('hint');
    const keys = structured(await upload(t, ['keys'])).preview;
    expect(keys.total_files).toBe(1);
    expect(keys.excluded).toHaveLength(25);
    expect(keys.excluded[0]).toMatchObject({ rule: 'pem', message: expect.stringMatching(/is a \.pem file \(upload rule "pem"\)/) });
    await t.close();
  });

  it('uploadRoots given empty: the tool is listed, and a call says there is no folder to upload from', async () => {
    const t = await connected({ allowWrites: true, uploadRoots: [] });
    expect((await t.mcp.listTools()).tools.map((tool) => tool.name)).toContain('room_documents_upload');
    expect(text(await upload(t, ['.']))).toBe('[svc-sdk] room_documents_upload: there is no folder to upload from: the user can start the server with --upload-root <dir> (uploadRoots), or use a host that shares its roots');
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

  it('a made-up token for an upload is refused as one (not as a preview whose record is gone), nothing sent', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.txt'), 'a');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    expect(text(await upload(t, ['a.txt'], { commit_token: 'yes, the user approved' }))).toMatch(/refused, nothing was changed: commit_token is not a token this server made/);
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

  it('a path that cannot be opened (a socket: ENXIO) is refused at the preview, naming the error', async () => {
    const root = tempDir();
    const socket = await listening(join(root, 'sock'));
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    expect(text(await upload(t, ['sock']))).toMatch(/paths: "[^"]*sock" cannot be opened \(ENXIO\): fix its permissions or leave it out/);
    await t.close();
    socket.close();
  });

  it('a file swapped for a socket or a FIFO between preview and commit: refused as a change, nothing sent', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.txt'), 'a');
    writeFileSync(join(root, 'b.txt'), 'b');
    const t = await connected({ allowWrites: true, uploadRoots: [root] });
    const tokenOf = async (path: string) => structured(await upload(t, [path])).commit_token as string;
    const [a, b] = [await tokenOf('a.txt'), await tokenOf('b.txt')];
    rmSync(join(root, 'a.txt'));
    const socket = await listening(join(root, 'a.txt'));
    rmSync(join(root, 'b.txt'));
    execFileSync('mkfifo', [join(root, 'b.txt')]);
    expect(text(await upload(t, ['a.txt'], { commit_token: a }))).toMatch(/refused, nothing was sent: the files changed since the preview: "[^"]*a\.txt" cannot be opened \(ENXIO\)\. Call without commit_token/);
    expect(text(await upload(t, ['b.txt'], { commit_token: b }))).toMatch(/the files changed since the preview: "[^"]*b\.txt" is no longer a regular file\./);
    expect(t.writes()).toEqual([]);
    await t.close();
    socket.close();
  });

  it('with two roots, a relative path resolves against the first; an absolute path in the second is inside', async () => {
    const [first, second] = [tempDir(), tempDir()];
    writeFileSync(join(first, 'one.txt'), '1');
    writeFileSync(join(second, 'two.txt'), '2');
    const t = await connected({ allowWrites: true, uploadRoots: [first, second] });
    expect((await upload(t, ['one.txt'])).isError).toBeFalsy();
    expect(text(await upload(t, ['two.txt']))).toMatch(/does not exist/);
    expect((await upload(t, [join(second, 'two.txt')])).isError).toBeFalsy();
    expect(text(await upload(t, ['/etc/hostname']))).toContain(`is outside the folders this server may upload from (${first}, ${second}): move it there`);
    await t.close();
  });
});
