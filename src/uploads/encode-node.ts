import type { PathLike } from 'node:fs';
import { stat } from 'node:fs/promises';
import { prepareUpload } from './encode-web.js';
import { buildMultipart } from './multipart.js';
import type { FileMetadata, MultipartBody, Uploadable } from './types.js';

/**
 * The largest chunk handed to Node's fetch. Fetch lets go of a chunk once it is written, but V8 frees
 * its memory only at the next young-generation collection, which is paced by the JavaScript objects
 * allocated rather than by the bytes; smaller chunks mean less spent memory waiting. Measured on a
 * 1 GiB upload (BENCHMARKS.md, "Upload memory"): fs's 64 KiB chunks peaked at 118-131 MB of RSS on
 * Node 24, 16 KiB at 96 (98-100 on Node 26), 8 KiB at 91 (80 on Node 22, 93 on Node 26), for about
 * 25 % more CPU time than 16 KiB.
 */
export const NODE_CHUNK_BYTES = 8 * 1024;

// Bun and Deno load the Node entry too (they match the `node` export condition) but send a Blob body
// natively with its length (Deno would send a stream chunked): the small chunks answer the memory
// behaviour of Node's own fetch (undici) only.
const isNodeFetch = !('Bun' in globalThis) && !('Deno' in globalThis);

/**
 * The multipart encoder on Node: the size of an untouched fs.ReadStream (from `stat`), so the
 * upload carries a Content-Length and progress a total; and on Node's fetch every input as one
 * stream of small chunks (bytes and Buffers as views, never copied), so memory stays flat.
 */
export async function encodeMultipartNode(file: Uploadable, metadata: FileMetadata): Promise<MultipartBody> {
  const upload = prepareUpload(file, metadata, await fsStreamSize(file));
  return buildMultipart(upload.source, upload.filename, upload.contentType, isNodeFetch ? NODE_CHUNK_BYTES : undefined);
}

interface FsReadStreamLike {
  path?: unknown;
  bytesRead?: unknown;
  start?: unknown;
  end?: unknown;
  readableDidRead?: unknown;
}

/** The bytes an fs.ReadStream will yield, when it reads a whole file and nothing was read yet. */
async function fsStreamSize(file: Uploadable): Promise<number | undefined> {
  if (file instanceof Blob || file instanceof ReadableStream || file === null || typeof file !== 'object') return undefined;
  const stream = file as FsReadStreamLike;
  const whole = stream.start === undefined && (stream.end === undefined || stream.end === Infinity);
  const fresh = stream.bytesRead === 0 && stream.readableDidRead !== true;
  if (!whole || !fresh) return undefined;
  if (typeof stream.path !== 'string' && !(stream.path instanceof URL) && !(stream.path instanceof Uint8Array)) return undefined;
  try {
    const stats = await stat(stream.path as PathLike);
    return stats.isFile() ? stats.size : undefined;
  } catch {
    // Not fatal: the stream reports its own error when read; without a size the upload is chunked.
    return undefined;
  }
}
