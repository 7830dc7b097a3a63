// Reading an iterable input's file for uploadMany: hashed in the read that uploads it (or that compares it with a manifest).
import { asBytes } from '../shared/bytes.js';
import type { HashedSource, Hasher } from './file-system.js';
import type { Uploadable } from './types.js';

/**
 * The input as an async iterable of its chunks, as they are (the encoder takes strings and views),
 * that notes when it has been read to the end and feeds `hasher`. Read on demand: the upload's own
 * backpressure paces the file. Only a Blob or bytes is ever hashed (a manifest takes nothing else,
 * for a rerun must compare it), so the chunks hashed are bytes; the size the run records is the
 * input's own (known for those), so no count is kept here.
 */
export function tap(file: Uploadable, hasher: Hasher | undefined): HashedSource & { file: AsyncIterable<Uint8Array | string> } {
  let exhausted = false;
  let digest: string | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array | string> {
    const bytes = asBytes(file);
    const source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array> = bytes
      ? [bytes]
      : file instanceof Blob
        ? iterateStream(file.stream())
        : file instanceof ReadableStream
          ? iterateStream(file)
          : (file as AsyncIterable<Uint8Array | string>);
    for await (const chunk of source) {
      hasher?.update(chunk as Uint8Array);
      yield chunk;
    }
    exhausted = true;
    digest = hasher?.digest();
  }
  return {
    file: chunks(),
    get exhausted() {
      return exhausted;
    },
    sha256: () => digest,
    size: () => undefined,
  };
}

/** A web stream as an async iterable, by its reader (Safari's streams are not async iterable). */
export async function* iterateStream(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
