import type { APIPromise } from '../core/api-promise.js';
import type { BodyCall } from '../core/types.js';
import { operations } from '../operations.js';
import type { Document } from '../schemas/documents.js';
import type { Uploadable, UploadOptions } from '../uploads/types.js';
import type { UploadManyInputs, UploadManyOptions, UploadManyResult } from '../uploads/upload-many-types.js';
import { Resource } from './resource.js';
import { uploadBody } from './upload-body.js';

/** Documents in a data room. */
export class Documents extends Resource {
  /**
   * Uploads a file to a room as multipart (one part named `file`), streaming it where the input
   * allows. Never retried automatically: a document must not be stored twice.
   *
   * @param roomId The id of the room the document goes to.
   * @param file The file: a `File` or `Blob`, bytes, a stream, or `fileFromPath(path)` on Node.
   * @param options The `filename` and `contentType` to send, `onUploadProgress`, and per-call overrides of the client's settings.
   *
   * @example
   * ```ts
   * const document = await client.documents.upload(room.id, new File(['Q3 revenue grew 12%.'], 'q3.txt'));
   * // On Node, from disk and streamed: client.documents.upload(room.id, await fileFromPath('memo.pdf'))
   * console.log(document.id, document.original_filename);
   * ```
   */
  upload(roomId: number, file: Uploadable, options: UploadOptions = {}): APIPromise<Document> {
    const { filename, contentType, onUploadProgress, ...requestOptions } = options;
    // The body is built by the core's call once roomId is checked, so a bad id opens no file.
    const warn = this.core.log.warn;
    const body = (call: BodyCall) => uploadBody({ file, filename, contentType, onUploadProgress, warn, call });
    return this.core.call(operations['documents.upload'], { path: [roomId], body }, requestOptions);
  }

  /**
   * Uploads many files to a room, `concurrency` (default 4) at a time: every file below a directory
   * (Node; recursively, in a stable order, symlinks not followed) or each `{ file, filename }` of an
   * iterable. Each file ends in exactly one list: `uploaded`, `skipped` (stored by an earlier run,
   * per the `manifest`), `failed` (provably not stored: a rerun sends it), `unknown` (its body was
   * sent and a 5xx or no answer came: never sent again unless `retryUnknown`) or `notStarted` (the
   * run stopped first: `stopped` says why, once; a 401, 403 or 404 stops it). Like `upload`, never retried.
   *
   * @param roomId The id of the room the documents go to.
   * @param inputs A directory's path (Node), or an iterable of `{ file, filename }`.
   * @param options `concurrency`, the `manifest` that remembers what is stored, `onProgress`, `retryUnknown`, and per-call overrides.
   *
   * @example
   * ```ts
   * import { Client } from 'svc-sdk';
   *
   * const client = new Client();
   * const { uploaded, skipped, failed, unknown } = await client.documents.uploadMany(7, './deal-docs', {
   *   manifest: './deal-docs.manifest.jsonl',
   *   onProgress: (p) => console.log(`${p.filesDone}/${p.filesTotal} files`),
   * });
   * console.log(uploaded.length, skipped.length, failed.length, unknown.length);
   * ```
   */
  async uploadMany(roomId: number, inputs: UploadManyInputs, options: UploadManyOptions = {}): Promise<UploadManyResult> {
    // Loaded on first use: a Client that never calls it does not load it (nor, on Node, its file system).
    const { uploadMany } = await import('../uploads/upload-many.js');
    const service = { origin: new URL(this.core.urlOf('')).origin, warn: this.core.log.warn };
    return uploadMany((file, uploadOptions) => this.upload(roomId, file, uploadOptions), roomId, inputs, options, service);
  }
}
