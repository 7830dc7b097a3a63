/** The file part of an upload: a Blob (size known, possibly file-backed), the caller's bytes, or a stream of bytes. */
export type PartSource =
  | { blob: Blob }
  | { bytes: Uint8Array }
  | {
      stream: ReadableStream<Uint8Array>;
      size?: number | undefined;
      /** The stream's first chunk when the encoder read it already (to refuse an empty stream): handed over first. */
      first?: Uint8Array | undefined;
    };

/** Reads a part's bytes one chunk at a time, on demand; `next()` resolves undefined at the end. */
export interface PartReader {
  next(): Promise<Uint8Array | undefined>;
  cancel(reason: unknown): Promise<void>;
  /** Bytes the part will yield, when known. */
  size: number | undefined;
}

/**
 * How much of a Blob is read at a time: Node streams an in-memory Blob as one chunk per part (a
 * copy of it whole), so a Blob is read as consecutive slices; 8 MiB keeps the number of times a
 * file-backed Blob reopens its file low (128 per GiB).
 */
const BLOB_SLICE_BYTES = 8 * 1024 * 1024;

/** A reader over the caller's bytes (handed out whole: the framing cuts views), a Blob, or a stream. */
export function readerOf(source: PartSource): PartReader {
  if ('bytes' in source) {
    let given = false;
    return {
      next: async () => (given ? undefined : ((given = true), source.bytes)),
      // Nothing to close, and nothing asks for more once cancelled (the framing stops reading).
      cancel: async () => undefined,
      size: source.bytes.byteLength,
    };
  }
  if ('blob' in source) return blobReader(source.blob);
  const reader = source.stream.getReader();
  let first = source.first;
  return {
    async next() {
      if (first) {
        const chunk = first;
        first = undefined;
        return chunk;
      }
      const { done, value } = await reader.read();
      return done ? undefined : value;
    },
    cancel: (reason) => reader.cancel(reason),
    size: source.size,
  };
}

/** A Blob read slice by slice; once cancelled, `next` is never called again (the framing stops reading). */
function blobReader(blob: Blob): PartReader {
  let offset = 0;
  let slice: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return {
    async next() {
      for (;;) {
        if (!slice) {
          if (offset >= blob.size) return undefined;
          const end = Math.min(offset + BLOB_SLICE_BYTES, blob.size);
          slice = blob.slice(offset, end).stream().getReader();
          offset = end;
        }
        const { done, value } = await slice.read();
        if (!done) return value;
        slice = undefined;
      }
    },
    async cancel(reason) {
      await slice?.cancel(reason);
    },
    size: blob.size,
  };
}
