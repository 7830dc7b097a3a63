import { asBytes } from '../shared/bytes.js';
import { readerOf, type PartReader, type PartSource } from './part-reader.js';
import type { MultipartBody } from './types.js';

export type { PartSource } from './part-reader.js';

const encoder = new TextEncoder();

/**
 * Escapes a header parameter the way browsers' FormData does (WHATWG HTML, multipart/form-data
 * encoding): `"` → %22, CR → %0D, LF → %0A; everything else, unicode included, stays as UTF-8 bytes.
 */
function escapeParameter(value: string): string {
  return value.replace(/["\r\n]/g, (char) => (char === '"' ? '%22' : char === '\r' ? '%0D' : '%0A'));
}

/**
 * A boundary that cannot plausibly occur in the file: 128 random bits after a fixed prefix, each of
 * their four words as 7 base-36 digits (always 40 characters in all). (Not shared/hex.ts: the webhooks import it too, and a lazily loaded part importing a
 * module the entry reaches puts it in a chunk of its own loaded at start, 168 B min+gzip.)
 */
function makeBoundary(): string {
  return `----svc-sdk-${Array.from(crypto.getRandomValues(new Uint32Array(4)), (word) => word.toString(36).padStart(7, '0')).join('')}`;
}

/**
 * Builds the body of `multipart/form-data` with one part named `file`, byte for byte what a
 * browser's FormData sends. Without `maxChunkBytes` (the web encoder) bytes and Blobs become a Blob
 * body (fetch streams it and sets Content-Length; a file-backed Blob is never read whole) and a
 * stream is framed by a preamble and the closing boundary. With it (Node) every input is framed as
 * one stream of chunks of at most that size, with a Content-Length when the size is known.
 */
export function buildMultipart(source: PartSource, filename: string, contentType: string, maxChunkBytes?: number): MultipartBody {
  const boundary = makeBoundary();
  const preamble = encoder.encode(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="file"; filename="${escapeParameter(filename)}"\r\n` +
      `Content-Type: ${contentType}\r\n\r\n`,
  );
  const closing = encoder.encode(`\r\n--${boundary}--\r\n`);
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  if (maxChunkBytes === undefined) {
    // Bytes become a Blob (a copy): browsers send a Blob body over HTTP/1.1, never a stream.
    if ('bytes' in source) source = { blob: new Blob([source.bytes as BlobPart]) };
    if ('blob' in source) {
      const body = new Blob([preamble, source.blob, closing]);
      const expected = preamble.byteLength + source.blob.size + closing.byteLength;
      if (body.size === expected) return { body, headers, size: expected };
      // Bun drops the bytes of a file-backed Blob (fs.openAsBlob) placed inside a new Blob: the size
      // check catches it, and the file is streamed instead (same bytes, same Content-Length).
      source = { stream: source.blob.stream(), size: source.blob.size };
    }
  }
  const reader = readerOf(source);
  const size = reader.size === undefined ? undefined : preamble.byteLength + reader.size + closing.byteLength;
  // Node's fetch honours an explicit Content-Length on a stream (and fails the request if the
  // stream's length differs); browsers drop it and send chunked, which is harmless.
  if (size !== undefined) headers['content-length'] = String(size);
  const { stream, release } = frame(preamble, reader, closing, maxChunkBytes ?? Infinity);
  return { body: stream, headers, size, release };
}

/**
 * The preamble, the part's bytes (cut into views of at most `maxChunkBytes`, never copied), then
 * the closing boundary, as one pull-driven stream with no queue: a chunk is read from the source
 * only when fetch asks for one, so a slow network never makes the SDK buffer the file. `release`
 * ends the stream early and cancels the source.
 */
function frame(preamble: Uint8Array, reader: PartReader, closing: Uint8Array, maxChunkBytes: number) {
  let state: 'preamble' | 'part' | 'released' = 'preamble';
  let current: Uint8Array | undefined;
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (state === 'preamble') {
          state = 'part';
          controller.enqueue(preamble);
          return;
        }
        // Skips empty chunks: a pull that enqueues nothing would not be called again.
        while (state === 'part' && (current === undefined || offset >= current.byteLength)) {
          current = await reader.next();
          offset = 0;
          if (current === undefined) {
            controller.enqueue(closing);
            controller.close();
            return;
          }
        }
        if (state === 'released') {
          controller.close();
          return;
        }
        // Still reading the part, the loop above left a chunk with bytes to hand over.
        const chunk = current!;
        const end = Math.min(offset + maxChunkBytes, chunk.byteLength);
        // A view, not a copy; this default (non-byte) stream hands it over as it is, never detached.
        controller.enqueue(offset === 0 && end === chunk.byteLength ? chunk : chunk.subarray(offset, end));
        offset = end;
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  const release = async (reason: unknown) => {
    state = 'released';
    current = undefined;
    try {
      await reader.cancel(reason);
    } catch {
      // The upload has already failed with the error that matters; a source that fails to close adds nothing.
    }
  };
  return { stream, release };
}

/** Turns any async iterable of bytes (a Node Readable, a generator) into a web ReadableStream, lazily. */
export function streamFromIterable(iterable: AsyncIterable<Uint8Array | string>): ReadableStream<Uint8Array> {
  // Taken now, and still lazy: an async generator (a Node Readable's included) runs only at `next()`.
  const iterator = iterable[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === 'string' ? encoder.encode(value) : toPlainBytes(value));
      },
      async cancel() {
        // Ends the source too: a Node Readable is destroyed and its file descriptor closed.
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

function toPlainBytes(value: unknown): Uint8Array {
  const bytes = asBytes(value);
  if (bytes) return bytes;
  throw new TypeError('[svc-sdk] documents.upload: the stream yielded something other than bytes or strings');
}
