import type { MultipartBody } from './types.js';

const encoder = new TextEncoder();

/** The file part of an upload, as a Blob (size known, possibly file-backed) or a stream of bytes. */
export type PartSource =
  | { blob: Blob }
  | { stream: ReadableStream<Uint8Array>; size?: number | undefined };

/**
 * Escapes a header parameter the way browsers' FormData does (WHATWG HTML, multipart/form-data
 * encoding): `"` → %22, CR → %0D, LF → %0A; everything else, unicode included, stays as UTF-8 bytes.
 */
export function escapeParameter(value: string): string {
  return value.replace(/["\r\n]/g, (char) => (char === '"' ? '%22' : char === '\r' ? '%0D' : '%0A'));
}

/** A boundary that cannot plausibly occur in the file: 24 random hex digits after a fixed prefix. */
export function makeBoundary(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `----svc-sdk-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Builds the body of `multipart/form-data` with one part named `file`, byte for byte what a
 * browser's FormData sends. A Blob stays a Blob (fetch streams it and sets Content-Length; a
 * file-backed Blob is never read whole); a stream is framed by a preamble and the closing boundary.
 */
export function buildMultipart(source: PartSource, filename: string, contentType: string): MultipartBody {
  const boundary = makeBoundary();
  const preamble = encoder.encode(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="file"; filename="${escapeParameter(filename)}"\r\n` +
      `Content-Type: ${contentType}\r\n\r\n`,
  );
  const closing = encoder.encode(`\r\n--${boundary}--\r\n`);
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  if ('blob' in source) {
    const body = new Blob([preamble, source.blob, closing]);
    const expected = preamble.byteLength + source.blob.size + closing.byteLength;
    if (body.size === expected) return { body, headers, size: expected };
    // Bun drops the bytes of a file-backed Blob (fs.openAsBlob) placed inside a new Blob: the size
    // check catches it, and the file is streamed instead (same bytes, same Content-Length).
    return buildFramedStream(preamble, source.blob.stream(), closing, source.blob.size, headers);
  }
  return buildFramedStream(preamble, source.stream, closing, source.size, headers);
}

function buildFramedStream(
  preamble: Uint8Array,
  stream: ReadableStream<Uint8Array>,
  closing: Uint8Array,
  partSize: number | undefined,
  headers: Record<string, string>,
): MultipartBody {
  const size = partSize === undefined ? undefined : preamble.byteLength + partSize + closing.byteLength;
  // Node's fetch honours an explicit Content-Length on a stream (and fails the request if the
  // stream's length differs); browsers drop it and send chunked, which is harmless.
  if (size !== undefined) headers['content-length'] = String(size);
  return { body: frame(preamble, stream, closing), headers, size };
}

function frame(preamble: Uint8Array, stream: ReadableStream<Uint8Array>, closing: Uint8Array): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue(preamble);
          return;
        }
        // Skip empty chunks: a pull that enqueues nothing would not be called again.
        for (;;) {
          const { done, value } = await reader.read();
          if (done) {
            controller.enqueue(closing);
            controller.close();
            return;
          }
          if (value.byteLength > 0) {
            controller.enqueue(value);
            return;
          }
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    // Pull-driven with no queue: a chunk is read from the source only when fetch asks for one,
    // so a slow network never makes the SDK buffer the file.
    { highWaterMark: 0 },
  );
}

/** Turns any async iterable of bytes (a Node Readable, a generator) into a web ReadableStream, lazily. */
export function streamFromIterable(iterable: AsyncIterable<Uint8Array | string>): ReadableStream<Uint8Array> {
  let iterator: AsyncIterator<Uint8Array | string> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        iterator ??= iterable[Symbol.asyncIterator]();
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === 'string' ? encoder.encode(value) : toPlainBytes(value));
      },
      async cancel() {
        // Ends the source too: a Node Readable is destroyed and its file descriptor closed.
        await iterator?.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

function toPlainBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError('[svc-sdk] documents.upload: the stream yielded something other than bytes or strings');
}
