import { ValidationError, type Issue } from '../core/errors.js';
import { asBytes } from '../shared/bytes.js';
import { basename, mimeFromFilename } from './mime.js';
import { buildMultipart, streamFromIterable } from './multipart.js';
import type { PartSource } from './part-reader.js';
import type { FileMetadata, MultipartBody, Uploadable } from './types.js';

const OPERATION = 'documents.upload';

/**
 * The multipart encoder for every runtime, with no Node built-in: Blobs, Files and bytes become a
 * Blob body (fetch streams it with a Content-Length); web streams and async iterables are framed
 * as a stream, never buffered.
 */
export async function encodeMultipart(file: Uploadable, metadata: FileMetadata): Promise<MultipartBody> {
  const upload = prepareUpload(file, metadata, undefined);
  return buildMultipart(upload.source, upload.filename, upload.contentType);
}

/** An upload checked and named: where its bytes come from, and the part's filename and type. */
export interface PreparedUpload {
  source: PartSource;
  filename: string;
  contentType: string;
}

/**
 * Checks an upload and resolves its name and type (options, then the input, then the extension);
 * `streamSize` is the byte length of a stream input when the caller (the Node encoder, from
 * `stat`) knows it, so the request gets a Content-Length and progress a total. Throws
 * ValidationError before anything is read or sent.
 */
export function prepareUpload(file: Uploadable, metadata: FileMetadata, streamSize: number | undefined): PreparedUpload {
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
  return { source, filename: filename!, contentType };
}

function toSource(file: Uploadable, streamSize: number | undefined): PartSource {
  if (file instanceof Blob) return { blob: file };
  const bytes = asBytes(file);
  if (bytes) return { bytes };
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
