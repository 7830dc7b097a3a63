import { path } from '../core/path.js';
import type { APIPromise } from '../core/api-promise.js';
import { idField } from '../schemas/common.js';
import { DocumentSchema, type Document } from '../schemas/documents.js';
import { withUploadProgress } from '../uploads/progress.js';
import { encodeMultipart } from '../uploads/encode.js';
import type { MultipartBody, Uploadable, UploadOptions } from '../uploads/types.js';
import { runtime } from '../shared/runtime.js';
import type { UploadManyInputs, UploadManyOptions, UploadManyResult } from '../uploads/upload-many-types.js';
import { Resource } from './resource.js';

const roomIdSchema = idField('roomId');


/** Documents in a data room. */
export class Documents extends Resource {
  /**
   * Uploads a file to a room as multipart (one part named `file`), streaming it where the input
   * allows. Never retried automatically: a document must not be stored twice.
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
    return this.core.call('documents.upload', requestOptions, async (parse) => {
      const id = parse(roomIdSchema, roomId);
      const target = path`/rooms/${id}/documents`;
      // A stream's first chunk is awaited here, before the attempt's own timeout runs: bounded by the call's.
      const limits = { signal: requestOptions.signal, timeout: requestOptions.timeout ?? this.core.timeout, method: 'POST', url: this.core.urlOf(target) };
      let multipart: MultipartBody & { finish?: () => void } = await encodeMultipart(file, { filename, contentType }, limits);
      // Progress is counted here, not by the core: the encoder knows the body's exact size, and
      // the request keeps its Content-Length.
      if (onUploadProgress) multipart = withUploadProgress(multipart, onUploadProgress, this.core.log.warn);
      return {
        method: 'POST',
        path: target,
        body: multipart.body,
        headers: multipart.headers,
        // Not following redirects is what keeps a large upload out of memory on Node: undici
        // otherwise stores every chunk sent, to replay the body after a 307/308 (nodejs/undici#4058).
        // workerd refuses `redirect: 'error'` (only follow or manual) and does not buffer bodies: leave it be there.
        redirect: runtime.workerd ? undefined : 'error',
        schema: DocumentSchema,
        // Node's fetch keeps draining a stream body after the connection is gone: on failure, stop
        // reading the file and close it before the caller hears of it (and may retry or delete the file).
        settle: (error) => (error === undefined ? multipart.finish?.() : multipart.release?.(error)),
      };
    });
  }
  /**
   * Uploads many files to a room, `concurrency` (default 4) at a time: every file below a directory
   * (Node; recursively, in a stable order, symlinks not followed) or each `{ file, filename }` of an
   * iterable. Each file ends in exactly one list: `uploaded`, `skipped` (stored by an earlier run,
   * per the `manifest`), `failed` (provably not stored: a rerun sends it), `unknown` (its body was
   * sent and a 5xx or no answer came: never sent again unless `retryUnknown`) or `notStarted` (the
   * run stopped first: `stopped` says why, once; a 401, 403 or 404 stops it). Like `upload`, never retried.
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
