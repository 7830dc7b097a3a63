import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { ValidationError } from '../core/errors.js';
import { basename, mimeFromFilename } from './mime.js';
import type { FileMetadata } from './types.js';

/**
 * Opens a file on disk as a `File` for `documents.upload`, without reading it: the upload streams
 * it from disk (a file-backed Blob). Name: the path's basename; type: guessed from the extension.
 *
 * @param path The file's path on disk.
 * @param options The `filename` and `contentType` to send instead of those the path gives.
 *
 * @example
 * ```ts
 * import { Client, fileFromPath } from 'svc-sdk';
 * await new Client().documents.upload(roomId, await fileFromPath('./deck.pdf'));
 * ```
 */
export async function fileFromPath(path: string, options: FileMetadata = {}): Promise<File> {
  const filename = options.filename ?? basename(path);
  const type = options.contentType ?? mimeFromFilename(filename) ?? '';
  let blob: Blob;
  try {
    // stat first: openAsBlob reports a missing file only as ERR_INVALID_ARG_VALUE.
    const stats = await stat(path);
    // Only its code is shown (as a failed stat's is).
    if (!stats.isFile()) throw Object.assign(new Error(), { code: 'not a regular file' });
    // openAsBlob takes the size from the file and reads it only when the Blob is streamed.
    blob = await openAsBlob(path, { type });
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw new ValidationError('fileFromPath', [
      { path: ['path'], message: `cannot open "${path}" (${code}): pass the path of a readable file` },
    ]);
  }
  return new File([blob], filename, { type });
}
