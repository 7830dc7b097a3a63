import { path } from '../core/path.js';
import { parseParams } from '../core/validate.js';
import { idField } from '../schemas/common.js';
import { DocumentSchema, type Document } from '../schemas/documents.js';
import { withUploadProgress } from '../uploads/progress.js';
import { encodeMultipart } from '../uploads/encode.js';
import type { MultipartBody, Uploadable, UploadOptions } from '../uploads/types.js';
import { Resource } from './resource.js';

const roomIdSchema = idField('roomId');

// workerd refuses `redirect: 'error'` (only follow or manual) and does not buffer bodies: leave it be there.
const REFUSE_REDIRECTS = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers' ? undefined : 'error';

/** Documents in a data room. */
export class Documents extends Resource {
  /**
   * Uploads a file to a room as multipart (one part named `file`), streaming it where the input
   * allows. Never retried automatically: a document must not be stored twice.
   */
  async upload(roomId: number, file: Uploadable, options: UploadOptions = {}): Promise<Document> {
    parseParams('documents.upload', roomIdSchema, roomId);
    const { filename, contentType, onUploadProgress, ...requestOptions } = options;
    let multipart: MultipartBody & { finish?: () => void } = await encodeMultipart(file, { filename, contentType });
    // Progress is counted here, not by the core: the encoder knows the body's exact size, and
    // the request keeps its Content-Length.
    if (onUploadProgress) multipart = withUploadProgress(multipart, onUploadProgress);
    let document: Document;
    try {
      document = await this.core.request(
        {
          method: 'POST',
          path: path`/rooms/${roomId}/documents`,
          body: multipart.body,
          headers: multipart.headers,
          // Not following redirects is what keeps a large upload out of memory on Node: undici
          // otherwise stores every chunk sent, to replay the body after a 307/308 (nodejs/undici#4058).
          redirect: REFUSE_REDIRECTS,
          schema: DocumentSchema,
          operation: 'documents.upload',
        },
        // A caller's `maxRetries` cannot turn retries on: the core never retries a plain POST.
        requestOptions,
      );
    } catch (error) {
      // Node's fetch keeps draining a stream body after the connection is gone: stop reading the file,
      // and close it before the caller hears of the failure (and may retry or delete the file).
      await multipart.release?.(error);
      throw error;
    }
    multipart.finish?.();
    return document;
  }
}
