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
  /** Name of the file part; required for bytes and streams, taken from a File otherwise. */
  filename?: string;
  /** MIME type of the file part; default: the Blob's type, else `application/octet-stream`. */
  contentType?: string;
}

/** Options of `documents.upload`: the file's metadata, progress, and the usual per-call options. */
export interface UploadOptions extends RequestOptions, FileMetadata {
  /** Called as bytes are sent: `{ loaded, total }` (total when known). */
  onUploadProgress?: (progress: UploadProgress) => void;
}

/** A multipart request body, with the headers it needs (its content type, its length when known). */
export interface MultipartBody {
  body: BodyInit;
  headers?: Record<string, string>;
}

/** Turns a user's file into the multipart body of an upload: one part named `file`. */
export type MultipartEncoder = (file: Uploadable, metadata: FileMetadata) => Promise<MultipartBody>;
