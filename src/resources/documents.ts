import { path } from '../core/path.js';
import { parseParams } from '../core/validate.js';
import { idField } from '../schemas/common.js';
import { DocumentSchema, type Document } from '../schemas/documents.js';
import type { MultipartEncoder, Uploadable, UploadOptions } from '../uploads/types.js';
import { Resource } from './resource.js';

const roomIdSchema = idField('roomId');

/** Documents in a data room. */
export class Documents extends Resource {
  readonly #encode: MultipartEncoder;

  constructor(core: Resource['core'], encode: MultipartEncoder) {
    super(core);
    this.#encode = encode;
  }

  /**
   * Uploads a file to a room as multipart (one part named `file`). Never retried automatically:
   * a document must not be stored twice.
   */
  async upload(roomId: number, file: Uploadable, options: UploadOptions = {}): Promise<Document> {
    parseParams('documents.upload', roomIdSchema, roomId);
    const { filename, contentType, onUploadProgress, ...requestOptions } = options;
    const { body, headers } = await this.#encode(file, { filename, contentType });
    return this.core.request(
      {
        method: 'POST',
        path: path`/rooms/${roomId}/documents`,
        body,
        headers,
        onUploadProgress,
        schema: DocumentSchema,
        operation: 'documents.upload',
      },
      requestOptions,
    );
  }
}
