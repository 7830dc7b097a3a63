import type { RequestOptions, UploadProgress } from '../core/http.js';

/**
 * What `documents.upload` accepts: a Blob or File, bytes (Uint8Array, Node Buffer, ArrayBuffer),
 * a web ReadableStream, or a Node Readable (any async iterable of bytes).
 */
export type Uploadable =
  | Blob
  | Uint8Array
  | ArrayBuffer
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>;

/** The file's own metadata, when the caller knows better than the input. */
export interface FileMetadata {
  /** Name of the file part; taken from a File or an fs stream's path, required for other bytes and streams. */
  filename?: string | undefined;
  /** MIME type of the file part; default: the Blob's type, else one guessed from the extension, else `application/octet-stream`. */
  contentType?: string | undefined;
}

/** Options of `documents.upload`: the file's metadata, progress, and the usual per-call options. */
export interface UploadOptions extends RequestOptions, FileMetadata {
  /**
   * Called as bytes are sent: `{ loaded, total }` (total when known), multipart framing included.
   *
   * @param progress The bytes sent so far, and the total when it is known.
   */
  onUploadProgress?: ((progress: UploadProgress) => void) | undefined;
}

/** A multipart request body, with the headers it needs and its size in bytes when known. */
export interface MultipartBody {
  body: Blob | ReadableStream<Uint8Array>;
  headers: Record<string, string>;
  /** Bytes of the whole body (framing included), when known before sending. */
  size: number | undefined;
  /**
   * Stops reading the file after a failed upload and releases it (a Node Readable is destroyed):
   * Node's fetch otherwise keeps draining a stream body after the connection is gone.
   */
  release?: ((reason: unknown) => Promise<void>) | undefined;
}
