// `room_documents_upload`: local files and folders into a data room. A folder goes through the
// resumable `documents.uploadMany` with a manifest kept in the server's state folder (so a second
// commit of the same folder never sends a document twice); progress goes out as MCP progress
// notifications. Paths must lie inside the server's upload roots: the model chooses the paths,
// and a data room is not where ~/.ssh should end up.
import { createHash } from 'node:crypto';
import { mkdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import * as z from 'zod/mini';
import { fileFromPath } from 'svc-sdk';
import type { UploadManyProgress, UploadManyResult } from 'svc-sdk';
import { listFiles } from 'svc-sdk/internal';
import { id, ToolRefusal, type ToolContext, type WriteTool } from '../tool.js';

/** Most paths in one call. */
const MAX_PATHS = 20;
/** Most files listed one by one in a preview; the rest are counted. */
const LISTED_FILES = 25;

const uploadArgs = z.object({
  room_id: id('room_id').check(z.describe('The data room to upload to.')),
  paths: z
    .array(z.string().check(z.minLength(1)))
    .check(z.minLength(1), z.maxLength(MAX_PATHS), z.describe('Local files or folders (recursively).')),
});
type UploadArgs = z.infer<typeof uploadArgs>;

const entry = z.object({ path: z.string(), kind: z.enum(['file', 'folder']), files: z.number(), bytes: z.number() });
const uploadPreview = z.object({
  operation: z.literal('documents.uploadMany'),
  room_id: z.number(),
  entries: z.array(entry),
  files: z.array(z.object({ path: z.string(), bytes: z.number() })),
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

/** `room_documents_upload`. */
export const roomDocumentsUpload: WriteTool<UploadArgs, UploadPreview, UploadResult> = {
  kind: 'write',
  name: 'room_documents_upload',
  title: 'Upload local documents to a room',
  description:
    'Uploads local files and folders (recursively) to a data room, resumably.',
  operations: ['documents.uploadMany'],
  idempotent: false,
  args: uploadArgs,
  preview: uploadPreview,
  result: uploadResult,
  async previewOf(args, context) {
    const entries: UploadPreview['entries'] = [];
    const files: UploadPreview['files'] = [];
    for (const path of await insideRoots(args.paths, context)) {
      const listed = (await stat(path)).isDirectory() ? await listFiles(path, []) : undefined;
      // An entry that cannot be sent (a name that is not UTF-8, an unreadable file) is listed with no bytes: the upload reports it failed.
      const own = listed ? listed.map((file) => ({ path: join(path, file.path), bytes: 'size' in file ? file.size : 0 })) : [{ path, bytes: (await stat(path)).size }];
      entries.push({ path, kind: listed ? 'folder' : 'file', files: own.length, bytes: sum(own) });
      files.push(...own);
    }
    return {
      operation: 'documents.uploadMany',
      room_id: args.room_id,
      entries,
      files: files.slice(0, LISTED_FILES),
      total_files: files.length,
      total_bytes: sum(files),
      ...(files.length > LISTED_FILES ? { hint: `${files.length - LISTED_FILES} more file(s) not listed; entries counts them all` } : {}),
    };
  },
  async commit(args, context) {
    const { client, signal } = context;
    const result: UploadResult = { uploaded: [], skipped: [], failed: [], unknown: [] };
    const paths = await insideRoots(args.paths, context);
    const progress = progressReporter(context);
    const singles: string[] = [];
    for (const path of paths) {
      if (!(await stat(path)).isDirectory()) {
        singles.push(path);
        continue;
      }
      const manifest = manifestPath(context, args.room_id, path);
      await mkdir(dirname(manifest), { recursive: true, mode: 0o700 });
      const run = await client.documents.uploadMany(args.room_id, path, { manifest, signal, onProgress: progress });
      collect(result, run, (file) => join(path, file));
    }
    if (singles.length > 0) {
      const inputs = await Promise.all(singles.map(async (path) => ({ file: await fileFromPath(path), filename: basename(path) })));
      const byName = new Map(singles.map((path) => [basename(path), path]));
      const run = await client.documents.uploadMany(args.room_id, inputs, { signal, onProgress: progress });
      collect(result, run, (file) => byName.get(file) ?? file);
    }
    return result;
  },
  describe: (args) => `upload ${args.paths.map((path) => `"${path}"`).join(', ')} to room ${args.room_id}`,
  render: (result) =>
    `Uploaded ${result.uploaded.length}, skipped ${result.skipped.length} (already stored), failed ${result.failed.length}, unknown ${result.unknown.length}.`,
};

/** The real paths of `paths`, each inside an upload root, or a ToolRefusal naming the first that is not (or does not exist). */
async function insideRoots(paths: readonly string[], { uploadRoots }: ToolContext): Promise<string[]> {
  const real: string[] = [];
  for (const path of paths) {
    let resolved: string;
    try {
      resolved = await realpath(resolve(uploadRoots[0] ?? '.', path));
    } catch {
      throw new ToolRefusal(`paths: "${path}" does not exist or cannot be read: pass an existing file or folder`);
    }
    const inside = uploadRoots.some((root) => {
      const rel = relative(root, resolved);
      return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    });
    if (!inside) throw new ToolRefusal(`paths: "${path}" is outside the folders this server may upload from (${uploadRoots.join(', ')}): move it there or start the server with that folder as an upload root`);
    real.push(resolved);
  }
  return real;
}

/** Where a folder's manifest lives: the state folder, one file per room and folder. */
function manifestPath({ stateDir }: ToolContext, roomId: number, folder: string): string {
  const key = createHash('sha256').update(`${roomId}\0${folder}`).digest('hex').slice(0, 32);
  return join(stateDir, 'upload-manifests', `${key}.jsonl`);
}

/** An `onProgress` that forwards bytes (or files, when the bytes are unknown) as MCP progress, at most every 100 ms. */
function progressReporter(context: ToolContext): (progress: UploadManyProgress) => void {
  let last = 0;
  return (progress) => {
    const now = Date.now();
    const done = progress.filesDone === progress.filesTotal;
    if (!done && now - last < 100) return;
    last = now;
    const bytes = progress.bytesTotal !== undefined;
    void context.progress(bytes ? progress.bytesDone : progress.filesDone, bytes ? progress.bytesTotal : progress.filesTotal, `${progress.filesDone}/${progress.filesTotal ?? '?'} files`);
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
