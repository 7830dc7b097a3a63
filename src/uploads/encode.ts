import { ValidationError, type Issue } from '../core/errors.js';
import { asBytes } from '../shared/bytes.js';
import { basename, mimeFromFilename } from './mime.js';
import { buildMultipart, streamFromIterable } from './multipart.js';
import type { PartSource } from './part-reader.js';
import type { FileMetadata, MultipartBody, Uploadable } from './types.js';

const OPERATION = 'documents.upload';

/**
 * The largest chunk handed to Node's own fetch (undici). Fetch lets go of a chunk once it is
 * written, but V8 frees its memory only at the next young-generation collection, which is paced by
 * the objects allocated rather than by the bytes: smaller chunks mean less spent memory waiting.
 * BENCHMARKS.md ("Upload memory") has the peaks measured for each chunk size.
 */
export const NODE_CHUNK_BYTES = 8 * 1024;

/**
 * What the encoder adapts to in the runtime it finds itself in. A record rather than constants so
 * that tests on Node can take the browser's branch too.
 * @internal
 */
export const uploadRuntime = {
  /**
   * Node's own fetch: every input goes as one stream of small chunks (memory stays flat). Bun and
   * Deno send a Blob body natively with its length, and browsers never stream a request body over
   * HTTP/1.1, so elsewhere Blobs and bytes stay a Blob body.
   */
  nodeFetch:
    typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string' &&
    !('Bun' in globalThis) &&
    !('Deno' in globalThis),
};

/**
 * The multipart encoder of every runtime, picked by the input's shape: Blobs, Files and bytes
 * become a Blob body (or small chunks on Node's fetch), web streams and async iterables are framed
 * as a stream, never buffered, and an untouched fs.ReadStream gets its size from `stat`, so the
 * upload carries a Content-Length and progress a total.
 */
export async function encodeMultipart(file: Uploadable, metadata: FileMetadata): Promise<MultipartBody> {
  const upload = prepareUpload(file, metadata, await fsStreamSize(file));
  return buildMultipart(upload.source, upload.filename, upload.contentType, uploadRuntime.nodeFetch ? NODE_CHUNK_BYTES : undefined);
}

/** An upload checked and named: where its bytes come from, and the part's filename and type. */
interface PreparedUpload {
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
function prepareUpload(file: Uploadable, metadata: FileMetadata, streamSize: number | undefined): PreparedUpload {
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

interface FsReadStreamLike {
  path?: unknown;
  bytesRead?: unknown;
  start?: unknown;
  end?: unknown;
  readableDidRead?: unknown;
}

type Stat = (path: unknown) => Promise<{ isFile(): boolean; size: number }>;

/**
 * The bytes an fs.ReadStream will yield, when it reads a whole file and nothing was read yet.
 * `stat` comes from `process.getBuiltinModule` (Node 22.3+, Bun, Deno) rather than an import, so
 * the one encoder has no Node built-in in its module graph; without it the upload is sent chunked.
 */
async function fsStreamSize(file: Uploadable): Promise<number | undefined> {
  if (file instanceof Blob || file instanceof ReadableStream || file === null || typeof file !== 'object') return undefined;
  const stream = file as FsReadStreamLike;
  const whole = stream.start === undefined && (stream.end === undefined || stream.end === Infinity);
  const fresh = stream.bytesRead === 0 && stream.readableDidRead !== true;
  if (!whole || !fresh) return undefined;
  if (typeof stream.path !== 'string' && !(stream.path instanceof URL) && !(stream.path instanceof Uint8Array)) return undefined;
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => { stat?: Stat } | undefined } }).process;
  const stat = process?.getBuiltinModule?.('fs/promises')?.stat;
  if (!stat) return undefined;
  try {
    const stats = await stat(stream.path);
    return stats.isFile() ? stats.size : undefined;
  } catch {
    // Not fatal: the stream reports its own error when read; without a size the upload is chunked.
    return undefined;
  }
}
