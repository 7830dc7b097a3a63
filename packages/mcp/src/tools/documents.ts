// `room_documents_upload`: local files and folders into a data room. The model chooses the paths,
// so they must lie inside the upload roots the user chose (uploadRoots, or the host's roots), and
// inside them the upload policy (upload-policy.ts) leaves out credential places and svc-sdk's own
// state. The preview reads every file it lists through a handle (no link followed) and binds each
// one's size and SHA-256 to the commit token; the commit reads them again the same way and uploads
// exactly those bytes, or refuses naming what changed. A folder's run keeps a manifest in the
// server's state folder (so a second commit of the same folder never sends a document twice);
// progress goes out as MCP progress notifications.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import * as z from 'zod/mini';
import type { UploadManyInput, UploadManyProgress, UploadManyResult } from 'svc-sdk';
import { ensureStateDirectory, listFiles, mimeFromFilename, operations } from 'svc-sdk/internal';
import { STATE_FIX } from '../secret-files.js';
import { id, ToolRefusal, type ToolContext, type WriteTool } from '../tool.js';
import { inside } from '../upload-policy.js';

/** Most paths in one call. */
const MAX_PATHS = 20;
/** Most files listed one by one in a preview; the rest are counted. */
const LISTED_FILES = 25;
/** Most bytes one call sends: the commit holds the checked bytes in memory (larger sets: `svc-sdk upload`). */
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

const uploadArgs = z.object({
  room_id: id('room_id').check(z.describe('The data room to upload to.')),
  paths: z
    .array(z.string().check(z.minLength(1)))
    .check(z.minLength(1), z.maxLength(MAX_PATHS), z.describe('Local files or folders (recursively), inside the upload roots.')),
});
type UploadArgs = z.infer<typeof uploadArgs>;

const entry = z.object({ path: z.string(), kind: z.enum(['file', 'folder']), files: z.number(), bytes: z.number(), sha256: z.string() });
const uploadPreview = z.object({
  operation: z.literal('documents.uploadMany'),
  room_id: z.number(),
  entries: z.array(entry),
  files: z.array(z.object({ path: z.string(), bytes: z.number(), sha256: z.string() })),
  excluded: z.array(z.object({ path: z.string(), rule: z.string(), message: z.string() })),
  total_files: z.number(),
  total_bytes: z.number(),
  hint: z.optional(z.string()),
});
type UploadPreview = z.infer<typeof uploadPreview>;
const uploadResult = z.object({
  uploaded: z.array(z.object({ path: z.string(), document_id: z.number() })),
  skipped: z.array(z.string()),
  /** `path: error` per file. */
  failed: z.array(z.string()),
  unknown: z.array(z.string()),
  hint: z.optional(z.string()),
});
type UploadResult = z.infer<typeof uploadResult>;

/** One file as the preview saw it: where, the document's name, its size and SHA-256. */
interface SeenFile {
  path: string;
  name: string;
  bytes: number;
  sha256: string;
}

/** What the preview binds to the token: per argument path, its files (a folder's in listing order). */
interface UploadRecord {
  entries: { path: string; kind: 'file' | 'folder'; files: SeenFile[] }[];
}

/** `room_documents_upload`. */
export const roomDocumentsUpload: WriteTool<UploadArgs, UploadPreview, UploadResult> = {
  kind: 'write',
  name: 'room_documents_upload',
  title: 'Upload local documents to a room',
  description:
    'Uploads local files and folders (recursively) inside the upload roots to a data room, resumably. Credential places (.ssh, .env, keys, ...) are never sent; the preview lists what it leaves out. The commit sends exactly the bytes the preview hashed.',
  untrusted: { preview: ['entries[].path', 'files[].path', 'excluded[].path', 'excluded[].message'], result: ['uploaded[].path', 'skipped', 'failed', 'unknown'] },
  // client.documents.uploadMany: one documents.upload per file.
  operations: [operations['documents.upload']],
  idempotent: false,
  bindsContent: true,
  args: uploadArgs,
  preview: uploadPreview,
  result: uploadResult,
  async previewOf(args, context) {
    const record: UploadRecord = { entries: [] };
    const excluded: UploadPreview['excluded'] = [];
    // Counted before each file is read: a call over the cap is refused without reading it all.
    const budget = { left: MAX_UPLOAD_BYTES };
    for (const path of await insideRoots(args.paths, context)) {
      const listing = await filesOf(path, context);
      excluded.push(...listing.excluded);
      const files: SeenFile[] = [];
      for (const file of listing.files) files.push({ ...file, ...(await readChecked(file.path, budget)).seen });
      record.entries.push({ path, kind: listing.kind, files });
    }
    const files = record.entries.flatMap((each) => each.files);
    const totalBytes = sum(files);
    if (files.length === 0) throw new ToolRefusal(`paths: nothing to upload${excluded.length ? ` (${excluded.length} file(s) left out: ${excluded[0]!.message})` : ''}`);
    context.bind(record);
    return {
      operation: 'documents.uploadMany',
      room_id: args.room_id,
      entries: record.entries.map((each) => ({ path: each.path, kind: each.kind, files: each.files.length, bytes: sum(each.files), sha256: digestOf(each) })),
      files: files.slice(0, LISTED_FILES).map(({ path, bytes, sha256 }) => ({ path, bytes, sha256 })),
      excluded: excluded.slice(0, LISTED_FILES),
      total_files: files.length,
      total_bytes: totalBytes,
      ...(files.length > LISTED_FILES ? { hint: `${files.length - LISTED_FILES} more file(s) not listed; entries counts them all and their digests cover them` } : {}),
    };
  },
  async commit(args, context) {
    const record = context.bound as UploadRecord;
    const paths = await insideRoots(args.paths, context);
    // Every file checked before any is sent: a change anywhere refuses the whole commit.
    const checked: { path: string; kind: 'file' | 'folder'; inputs: (UploadManyInput & { path: string })[] }[] = [];
    for (const [index, seen] of record.entries.entries()) {
      if (paths[index] !== seen.path) throw changed(`"${args.paths[index]}" now resolves to "${paths[index]}", not "${seen.path}"`);
      const now = await filesOf(seen.path, context);
      const before = new Set(seen.files.map((file) => file.path));
      const after = new Set(now.files.map((file) => file.path));
      const added = [...after].filter((path) => !before.has(path));
      const removed = [...before].filter((path) => !after.has(path));
      if (added.length > 0) throw changed(`${added.map((path) => `"${path}"`).join(', ')} added`);
      if (removed.length > 0) throw changed(`${removed.map((path) => `"${path}"`).join(', ')} gone`);
      const inputs = [];
      for (const file of seen.files) {
        const { seen: read, bytes } = await readChecked(file.path);
        if (read.bytes !== file.bytes || read.sha256 !== file.sha256) throw changed(`"${file.path}" changed (${file.bytes} bytes, sha256 ${file.sha256.slice(0, 12)}… then; ${read.bytes} bytes, sha256 ${read.sha256.slice(0, 12)}… now)`);
        inputs.push({ path: file.path, filename: file.name, file: new File([new Uint8Array(bytes)], basename(file.name), { type: mimeFromFilename(file.name) ?? '' }) });
      }
      checked.push({ path: seen.path, kind: seen.kind, inputs });
    }
    const { client, signal } = context;
    const result: UploadResult = { uploaded: [], skipped: [], failed: [], unknown: [] };
    const progress = progressReporter(context);
    for (const { path, inputs } of checked.filter((each) => each.kind === 'folder')) {
      const manifest = manifestPath(context, args.room_id, path);
      // The state folders' one rule: made 0700, refused when others can open it or it is a link.
      ensureStateDirectory(dirname(manifest), STATE_FIX);
      const run = await client.documents.uploadMany(args.room_id, inputs.map(({ path: _local, ...input }) => input), { manifest, signal, onProgress: progress });
      // A folder's document names are its files' paths under it (filesOf), so the local path is the folder's joined with it.
      collect(result, run, (file) => join(path, file));
    }
    const singles = checked.filter((each) => each.kind === 'file').flatMap((each) => each.inputs);
    if (singles.length > 0) {
      const run = await client.documents.uploadMany(args.room_id, singles.map(({ path: _local, ...input }) => input), { signal, onProgress: progress });
      const byName = new Map(singles.map((input) => [input.filename, input.path]));
      collect(result, run, (file) => byName.get(file) ?? file);
    }
    return result;
  },
  describe: (args) => `upload ${args.paths.map((path) => JSON.stringify(path)).join(', ')} to room ${args.room_id}`,
  render: (result) =>
    `Uploaded ${result.uploaded.length}, skipped ${result.skipped.length} (already stored), failed ${result.failed.length}, unknown ${result.unknown.length}.`,
};

/** A refusal of the commit: the files are not what the preview showed. */
function changed(what: string): ToolRefusal {
  return new ToolRefusal(`refused, nothing was sent: the files changed since the preview: ${what}. Call without commit_token for a fresh preview of what is there now`);
}

/**
 * The files `path` stands for (itself, or a folder's regular files, links not followed) and those
 * the policy leaves out. An explicit path the policy covers is refused outright.
 */
async function filesOf(path: string, { policy }: ToolContext): Promise<{ kind: 'file' | 'folder'; files: { path: string; name: string }[]; excluded: UploadPreview['excluded'] }> {
  // O_NONBLOCK: a FIFO planted at the path must not hang the server on open.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0)).catch(() => undefined);
  const isFolder = handle ? (await handle.stat()).isDirectory() : false;
  await handle?.close();
  // A folder's own name counts as a folder on the path of what it holds (`~/.ssh` is refused as `.ssh/…` is).
  const own = policy.refusal(isFolder ? `${path}${sep}` : path);
  if (own) throw new ToolRefusal(`paths: ${own.message}`);
  if (!isFolder) return { kind: 'file', files: [{ path, name: basename(path) }], excluded: [] };
  const files: { path: string; name: string }[] = [];
  const excluded: UploadPreview['excluded'] = [];
  // No manifest to leave out of the listing: this tool's manifests live in the state folder, not in the folders it sends.
  for (const listed of await listFiles(path, undefined)) {
    const absolute = join(path, listed.path);
    if ('error' in listed) {
      excluded.push({ path: absolute, rule: 'unreadable', message: `"${absolute}" cannot be read or named: ${listed.error instanceof Error ? listed.error.message : String(listed.error)}` });
      continue;
    }
    const refusal = policy.refusal(absolute);
    if (refusal) excluded.push({ path: absolute, rule: refusal.rule, message: refusal.message });
    else files.push({ path: absolute, name: listed.path });
  }
  return { kind: 'folder', files, excluded };
}

/**
 * The bytes of the regular file at `path`, read through one handle that follows no link, with
 * their size and SHA-256; `budget` (a preview's) refuses a file that would take the call over MAX_UPLOAD_BYTES before it is read.
 */
async function readChecked(path: string, budget?: { left: number }): Promise<{ seen: { bytes: number; sha256: string }; bytes: Buffer }> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    // open() rejects with Node's system errors only, and each has a code (ENOENT, ELOOP, EACCES, ENXIO, ...).
    const what = `"${path}" cannot be opened (${(error as NodeJS.ErrnoException).code})`;
    // In a preview (with a budget) it is a file that cannot be sent; at commit, a file that changed.
    throw budget === undefined ? changed(what) : new ToolRefusal(`paths: ${what}: fix its permissions or leave it out`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw budget === undefined ? changed(`"${path}" is no longer a regular file`) : new ToolRefusal(`paths: "${path}" is not a regular file or folder: pass files and folders only`);
    if (budget !== undefined) {
      budget.left -= stats.size;
      if (budget.left < 0) throw new ToolRefusal(`paths: more than ${MAX_UPLOAD_BYTES} bytes in all (at "${path}"), over what one call sends: upload fewer files per call, or use \`svc-sdk upload\``);
    }
    const bytes = await handle.readFile();
    return { seen: { bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') }, bytes };
  } finally {
    await handle.close();
  }
}

/** A folder's listing digest (a file: its SHA-256): each file's name, size and SHA-256, in listing order. */
function digestOf({ kind, files }: UploadRecord['entries'][number]): string {
  if (kind === 'file') return files[0]!.sha256;
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.name}\0${file.bytes}\0${file.sha256}\n`);
  return hash.digest('hex');
}

/** The real paths of `paths`, each inside an upload root, or a ToolRefusal naming the first that is not (or does not exist). */
async function insideRoots(paths: readonly string[], context: ToolContext): Promise<string[]> {
  const roots = await context.uploadRoots();
  if (roots.length === 0) throw new ToolRefusal('there is no folder to upload from: the user can start the server with --upload-root <dir> (uploadRoots), or use a host that shares its roots');
  const real: string[] = [];
  for (const path of paths) {
    let resolved: string;
    try {
      resolved = await realpath(resolve(roots[0]!, path));
    } catch {
      throw new ToolRefusal(`paths: "${path}" does not exist or cannot be read: pass an existing file or folder`);
    }
    if (!roots.some((root) => inside(root, resolved))) {
      throw new ToolRefusal(`paths: "${path}" is outside the folders this server may upload from (${roots.join(', ')}): move it there or start the server with that folder as an upload root`);
    }
    real.push(resolved);
  }
  return real;
}

/** Where a folder's manifest lives: the state folder, one file per room and folder. */
function manifestPath({ stateDir }: ToolContext, roomId: number, folder: string): string {
  const key = createHash('sha256').update(`${roomId}\0${folder}`).digest('hex').slice(0, 32);
  return join(stateDir, 'upload-manifests', `${key}.jsonl`);
}

/**
 * An `onProgress` that forwards the bytes sent as MCP progress, at most every 100 ms (the last file's settling always).
 * The commit hands the SDK arrays of Files, whose count and sizes it knows before the run starts: both totals are there.
 */
function progressReporter(context: ToolContext): (progress: UploadManyProgress) => void {
  let last = 0;
  return (progress) => {
    const now = Date.now();
    if (progress.filesDone !== progress.filesTotal && now - last < 100) return;
    last = now;
    void context.progress(progress.bytesDone, progress.bytesTotal, `${progress.filesDone}/${progress.filesTotal} files`);
  };
}

function collect(into: UploadResult, run: UploadManyResult, pathOf: (file: string) => string): void {
  for (const file of run.uploaded) into.uploaded.push({ path: pathOf(file.path), document_id: file.document.id });
  for (const file of run.skipped) into.skipped.push(pathOf(file.path));
  for (const file of run.failed) into.failed.push(`${pathOf(file.path)}: ${file.error instanceof Error ? file.error.message : String(file.error)}`);
  for (const file of run.unknown) into.unknown.push(pathOf(file.path));
}

function sum(files: readonly { bytes: number }[]): number {
  return files.reduce((total, file) => total + file.bytes, 0);
}
