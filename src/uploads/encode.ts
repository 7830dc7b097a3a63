import { APITimeoutError, APIUserAbortError, ValidationError, type Issue } from '../core/errors.js';
import { asBytes } from '../shared/bytes.js';
import { runtime } from '../shared/runtime.js';
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

/** Streams whose byte length is known to their maker (uploadMany's checked file handles): no `stat` by path. */
const knownSizes = new WeakMap<object, number>();

/** Declares the bytes `stream` will yield, so its upload carries a Content-Length and progress a total. @internal */
export function withKnownSize<T extends object>(stream: T, size: number): T {
  knownSizes.set(stream, size);
  return stream;
}

/** How long the encoder may wait for a stream's first chunk, and for which request (named in the error): the call's (the core's `BodyCall`). */
export interface FirstChunkLimits {
  signal?: AbortSignal | undefined;
  /** Milliseconds: the call's timeout, which the wait counts against as any attempt does. */
  timeout: number;
  method: string;
  url: string;
}

/**
 * The multipart encoder of every runtime, picked by the input's shape: Blobs, Files and bytes
 * become a Blob body (or small chunks on Node's fetch), web streams and async iterables are framed
 * as a stream, never buffered, and an untouched fs.ReadStream gets its size from `stat`, so the
 * upload carries a Content-Length and progress a total.
 */
export async function encodeMultipart(file: Uploadable, metadata: FileMetadata, limits: FirstChunkLimits): Promise<MultipartBody> {
  // A WeakMap answers undefined for anything that is not an object (null, a string): no check first.
  const known = knownSizes.get(file as object);
  holdStreamErrors(file);
  const upload = prepareUpload(file, metadata, known ?? (await fsStreamSize(file)));
  if ('stream' in upload.source) upload.source = { ...upload.source, first: await firstChunk(upload.source.stream, limits) };
  // On Node's own fetch every input goes as one stream of small chunks (memory stays flat). Bun and
  // Deno send a Blob body natively with its length, and browsers never stream a request body over
  // HTTP/1.1, so elsewhere Blobs and bytes stay a Blob body.
  return buildMultipart(upload.source, upload.filename, upload.contentType, runtime.nodeFetch ? NODE_CHUNK_BYTES : undefined);
}

/**
 * The stream's first chunk, read already (the part's reader hands it over first; the stream is
 * released to it): a stream with nothing to read (one already read to its end) is a
 * ValidationError before anything is sent, rather than an empty document stored without a word.
 * The wait is bounded by the call's timeout and signal (`limits`): a stream whose first chunk never
 * comes fails the call (APITimeoutError, or the cancelled call's APIUserAbortError) and is cancelled.
 */
async function firstChunk(stream: ReadableStream<Uint8Array>, limits: FirstChunkLimits): Promise<Uint8Array> {
  const reader = stream.getReader();
  const first = await firstRead(reader, limits).catch((error: unknown) => {
    // The call's timeout or abort as they are; the stream's own failure (a missing file) names the input.
    if (error instanceof APITimeoutError || error instanceof APIUserAbortError) throw error;
    throw failedStream(error);
  });
  if (first.done) {
    throw new ValidationError(OPERATION, [
      {
        path: ['file'],
        message: 'file is a stream with nothing left to read (already read to its end?): pass a fresh stream, or new Uint8Array(0) for an empty file',
      },
    ]);
  }
  // No read is pending (this one resolved): the part's reader takes the stream from here.
  reader.releaseLock();
  return first.value;
}

/** The reader's first read, or the call's timeout or abort, whichever comes first (the reader is then cancelled). */
async function firstRead(reader: ReadableStreamDefaultReader<Uint8Array>, { signal, timeout, method, url }: FirstChunkLimits): Promise<ReadableStreamReadResult<Uint8Array>> {
  let fail!: (error: Error) => void;
  const stop = new Promise<never>((_, reject) => {
    fail = (error) => {
      // Rejected first: cancelling resolves the pending read as done, which must not win the race.
      reject(error);
      reader.cancel(error).catch(() => undefined);
    };
  });
  const onAbort = () => fail(new APIUserAbortError(method, url, signal!.reason));
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (signal?.aborted) onAbort();
  else {
    // Removed in `finally` whatever happens: a signal aborts once, so no `once` is needed.
    signal?.addEventListener('abort', onAbort);
    // A whole number of milliseconds that a timer can hold (the core checks every `timeout`). The
    // timer must not keep the process alive on its own (a script that dropped the call); browsers'
    // timers are numbers, with no unref.
    timer = setTimeout(() => fail(new APITimeoutError(method, url, timeout)), timeout);
    (timer as { unref?: () => void }).unref?.();
  }
  try {
    // `stop` first: when both are settled already (an aborted signal cancels the reader at once), it wins.
    return await Promise.race([stop, reader.read()]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
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
  if (isDetached(file)) {
    throw new ValidationError(OPERATION, [
      { path: ['file'], message: 'file is over a detached ArrayBuffer (transferred, as postMessage or structuredClone with transfer do): pass bytes that are still readable' },
    ]);
  }
  const bytes = asBytes(file);
  if (bytes) return { bytes };
  if (file instanceof ReadableStream) {
    if (file.locked) {
      throw new ValidationError(OPERATION, [
        { path: ['file'], message: 'file is a ReadableStream that is locked (a reader holds it, or it is being read): release its reader, or pass a fresh stream' },
      ]);
    }
    return { stream: file, size: streamSize };
  }
  if (file !== null && typeof file === 'object' && Symbol.asyncIterator in file) {
    const readable = file as { readableDidRead?: unknown; readableEnded?: unknown; destroyed?: unknown; errored?: unknown };
    if (readable.errored instanceof Error) throw failedStream(readable.errored);
    if (readable.readableDidRead === true || readable.readableEnded === true || readable.destroyed === true) {
      throw new ValidationError(OPERATION, [
        { path: ['file'], message: 'file is a stream that was read already (or destroyed): the document would be cut short; pass a fresh stream (fileFromPath opens one)' },
      ]);
    }
    return { stream: streamFromIterable(file), size: streamSize };
  }
  throw new ValidationError(OPERATION, [
    { path: ['file'], message: 'file must be a Blob, File, Uint8Array, ArrayBuffer, ReadableStream or Node Readable (fileFromPath opens a path on Node)' },
  ]);
}

/**
 * Listens for a Node stream's 'error' from the start: the encoder holds the stream across awaits
 * (its size looked up, the request built) before reading it, and an fs stream of a missing file
 * fails meanwhile; with no listener that 'error' would crash the process. The error stays on the
 * stream (`errored`): toSource refuses it, or the read that follows rejects with it.
 */
function holdStreamErrors(file: Uploadable): void {
  const emitter = file as { on?: (event: 'error', listener: () => void) => unknown } | null;
  if (typeof emitter?.on === 'function') emitter.on('error', () => undefined);
}

/** A stream that failed before its first chunk (an fs stream of a missing file): a ValidationError naming its error. */
function failedStream(error: unknown): ValidationError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ValidationError(OPERATION, [{ path: ['file'], message: `file is a stream that failed before it was read (${reason}): pass a stream of a file that can be read` }]);
}

/** The name the input carries: a File's name, or the basename of an fs stream's `path`. */
function nameOf(file: Uploadable): string | undefined {
  // A File's name (a plain Blob has none); every runtime has Blob, so no check that File exists.
  if (file instanceof Blob) return (file as Partial<File>).name || undefined;
  const path = (file as { path?: unknown }).path;
  if (typeof path === 'string') return basename(path) || undefined;
  // fs.createReadStream also takes a Buffer path, which it keeps (a file: URL it turns into a string).
  if (path instanceof Uint8Array) return basename(new TextDecoder().decode(path)) || undefined;
  return undefined;
}

/** Whether bytes are over an ArrayBuffer that was transferred away (ES2024 `detached`; it reads as 0 bytes, or throws). */
function isDetached(file: Uploadable): boolean {
  const buffer = file instanceof ArrayBuffer ? file : ArrayBuffer.isView(file) ? file.buffer : undefined;
  return (buffer as { detached?: unknown } | undefined)?.detached === true;
}

interface FsReadStreamLike {
  path?: unknown;
  bytesRead?: unknown;
  start?: unknown;
  end?: unknown;
}

type Stat = (path: unknown) => Promise<{ isFile(): boolean; size: number }>;

/**
 * The bytes an fs.ReadStream will yield, when it reads a whole file and nothing was read yet.
 * `stat` comes from `process.getBuiltinModule` (Node 22.3+, Bun, Deno) rather than an import, so
 * the one encoder has no Node built-in in its module graph; without it the upload is sent chunked.
 */
async function fsStreamSize(file: Uploadable): Promise<number | undefined> {
  // A Blob or a web stream has no `bytesRead`: it is not taken for an fs stream below.
  if (file === null || typeof file !== 'object') return undefined;
  const stream = file as FsReadStreamLike;
  const whole = stream.start === undefined && (stream.end === undefined || stream.end === Infinity);
  // Only an fs.ReadStream has `bytesRead`: 0 while nothing was read into it. (One already read from
  // is refused by toSource, whatever its size.)
  const fresh = stream.bytesRead === 0;
  if (!whole || !fresh) return undefined;
  if (typeof stream.path !== 'string' && !(stream.path instanceof Uint8Array)) return undefined;
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => { stat?: Stat } | undefined } }).process;
  const stat = process?.getBuiltinModule?.('fs/promises')?.stat;
  if (!stat) return undefined;
  // A failed stat is not fatal: the stream reports its own error when read; without a size the upload is chunked.
  const stats = await stat(stream.path).catch(() => undefined);
  return stats?.isFile() ? stats.size : undefined;
}
