import { ValidationError } from '../core/errors.js';
import type { FileMetadata, MultipartBody, Uploadable } from './types.js';

/**
 * The multipart encoder for every runtime: a native `FormData` with one part named `file`.
 * fetch sets the boundary and streams Blob parts (a file-backed Blob is never read whole).
 */
export async function encodeMultipart(file: Uploadable, metadata: FileMetadata): Promise<MultipartBody> {
  const blob = await toBlob(file, metadata);
  const filename = metadata.filename ?? (typeof File !== 'undefined' && blob instanceof File ? blob.name : undefined);
  if (!filename) {
    throw new ValidationError('documents.upload', [
      { path: ['filename'], message: 'filename is required for this input: pass { filename } in the options' },
    ]);
  }
  const form = new FormData();
  form.append('file', blob, filename);
  return { body: form };
}

async function toBlob(file: Uploadable, { contentType }: FileMetadata): Promise<Blob> {
  if (file instanceof Blob) {
    if (!contentType || contentType === file.type) return file;
    return file.slice(0, file.size, contentType);
  }
  const type = contentType ?? 'application/octet-stream';
  if (file instanceof Uint8Array || file instanceof ArrayBuffer) return new Blob([file as BlobPart], { type });
  throw new ValidationError('documents.upload', [
    { path: ['file'], message: 'file must be a Blob, File, Uint8Array, ArrayBuffer, ReadableStream or Node Readable' },
  ]);
}
