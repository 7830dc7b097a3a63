import { SvcError } from '../core/errors.js';
import type { FileMetadata } from './types.js';

/**
 * `fileFromPath` outside Node: there is no file system, so it always rejects; it exists so that
 * isomorphic code type-checks against either entry.
 *
 * @param path The file's path on disk.
 * @param options The `filename` and `contentType` to send instead of those the path gives.
 */
export async function fileFromPath(path: string, options?: FileMetadata): Promise<File> {
  void path;
  void options;
  throw new SvcError(
    '[svc-sdk] fileFromPath needs Node: this runtime loaded the web build of svc-sdk, which has no file system. ' +
      'Pass a Blob, File, bytes or a ReadableStream to documents.upload instead.',
  );
}
