/**
 * The body of one `documents.upload`: the file encoded as multipart, its progress counted, and its
 * input closed when the exchange ends. Loaded on a client's first upload (documents.ts imports it
 * dynamically), so a Client that never uploads does not carry the encoder.
 */
import type { Write } from '../core/logger.js';
import type { BodyCall, OutgoingBody, UploadProgress } from '../core/types.js';
import { encodeMultipart } from '../uploads/encode.js';
import { withUploadProgress } from '../uploads/progress.js';
import type { MultipartBody, Uploadable } from '../uploads/types.js';

/** What one upload's body is made from. */
export interface UploadBodyInit {
  readonly file: Uploadable;
  readonly filename: string | undefined;
  readonly contentType: string | undefined;
  readonly onUploadProgress: ((progress: UploadProgress) => void) | undefined;
  /** Where a progress callback that throws is reported. */
  readonly warn: Write;
  /** The call: a stream's first chunk is awaited within its timeout and signal. */
  readonly call: BodyCall;
}

/** The multipart body of one upload, with progress counted and its file closed when the exchange ends. */
export async function uploadBody({ file, filename, contentType, onUploadProgress, warn, call }: UploadBodyInit): Promise<OutgoingBody> {
  let multipart: MultipartBody & { finish?: () => void } = await encodeMultipart(file, { filename, contentType }, call);
  // Progress is counted here, not by the core: the encoder knows the body's exact size, and
  // the request keeps its Content-Length.
  if (onUploadProgress) multipart = withUploadProgress(multipart, onUploadProgress, warn);
  return {
    content: multipart.body,
    headers: multipart.headers,
    // Node's fetch keeps draining a stream body after the connection is gone: on failure, stop
    // reading the file and close it before the caller hears of it (and may retry or delete the file).
    settle: (error) => (error === undefined ? multipart.finish?.() : multipart.release?.(error)),
  };
}
