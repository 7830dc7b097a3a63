import type { PathLike } from 'node:fs';
import { stat } from 'node:fs/promises';
import { encodeUpload } from './encode-web.js';
import type { FileMetadata, MultipartBody, Uploadable } from './types.js';

/**
 * The multipart encoder on Node: the web encoder, plus the size of an untouched fs.ReadStream
 * (from `stat`), so the upload carries a Content-Length and progress reports a total.
 */
export async function encodeMultipartNode(file: Uploadable, metadata: FileMetadata): Promise<MultipartBody> {
  return encodeUpload(file, metadata, await fsStreamSize(file));
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
