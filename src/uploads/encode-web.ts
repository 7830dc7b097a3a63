import { ValidationError, type Issue } from '../core/errors.js';
import { basename, mimeFromFilename } from './mime.js';
import { buildMultipart, streamFromIterable, type PartSource } from './multipart.js';
import type { FileMetadata, MultipartBody, Uploadable } from './types.js';

const OPERATION = 'documents.upload';

/**
 * The multipart encoder for every runtime, with no Node built-in: Blobs, Files and bytes become a
 * Blob body (fetch streams it with a Content-Length); web streams and async iterables are framed
 * as a stream, never buffered.
 */
export async function encodeMultipart(file: Uploadable, metadata: FileMetadata): Promise<MultipartBody> {
  return encodeUpload(file, metadata, undefined);
}

/**
 * The shared encoder; `streamSize` is the byte length of a stream input when the caller (the Node
 * encoder, from `stat`) knows it, so the request gets a Content-Length and progress a total.
 */
export function encodeUpload(file: Uploadable, metadata: FileMetadata, streamSize: number | undefined): MultipartBody {
  const source = toSource(file, streamSize);
  const filename = metadata.filename ?? nameOf(file);
  const issues: Issue[] = [];
  if (filename === undefined || filename === '') {
    issues.push({ path: ['filename'], message: 'filename is required for this input: pass { filename } in the options' });
  }
  const blobType = 'blob' in source ? source.blob.type : '';
  const contentType =
    metadata.contentType || blobType || (filename ? mimeFromFilename(filename) : undefined) || 'application/octet-stream';
  if (/[\r\n]/.test(contentType)) {
    issues.push({ path: ['contentType'], message: 'contentType must not contain line breaks: pass a MIME type such as "application/pdf"' });
  }
  if (issues.length) throw new ValidationError(OPERATION, issues);
  return buildMultipart(source, filename!, contentType);
}

function toSource(file: Uploadable, streamSize: number | undefined): PartSource {
  if (file instanceof Blob) return { blob: file };
  if (file instanceof Uint8Array || file instanceof ArrayBuffer) return { blob: new Blob([file as BlobPart]) };
  if (ArrayBuffer.isView(file)) {
    const view = file as ArrayBufferView;
    return { blob: new Blob([new Uint8Array(view.buffer, view.byteOffset, view.byteLength) as BlobPart]) };
  }
  if (file instanceof ReadableStream) return { stream: file, size: streamSize };
  if (file !== null && typeof file === 'object' && Symbol.asyncIterator in file) {
    return { stream: streamFromIterable(file), size: streamSize };
  }
  throw new ValidationError(OPERATION, [
    { path: ['file'], message: 'file must be a Blob, File, Uint8Array, ArrayBuffer, ReadableStream or Node Readable (fileFromPath opens a path on Node)' },
  ]);
}

/** The name the input carries: a File's name, or the basename of an fs stream's `path`. */
function nameOf(file: Uploadable): string | undefined {
  if (typeof File !== 'undefined' && file instanceof File) return file.name || undefined;
  const path = (file as { path?: unknown }).path;
  if (typeof path === 'string') return basename(path) || undefined;
  // fs.createReadStream also takes a Buffer or URL path.
  if (path instanceof URL) return basename(decodeURIComponent(path.pathname)) || undefined;
  if (path instanceof Uint8Array) return basename(new TextDecoder().decode(path)) || undefined;
  return undefined;
}
