/**
 * Reads a body stream to its end, or gives up as soon as it passes `maxBytes`: `undefined` then,
 * and the stream is cancelled, so the sender is stopped and the rest is never read, let alone
 * buffered. A missing body reads as no bytes. The one bounded read of the client (answers), the
 * receiver (deliveries) and the emulator (requests). `own`: never one of the stream's chunks itself
 * (a view into a larger buffer, or one its sender may reuse), for bytes kept after the read.
 */
export async function readAtMost(body: ReadableStream<Uint8Array> | null | undefined, maxBytes: number, own = false): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body?.getReader();
  for (let chunk; reader && !(chunk = await reader.read()).done; ) {
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      // Not awaited: a tee'd body (msw hands handlers one) settles its cancel only once every branch is cancelled.
      reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(chunk.value);
  }
  return own && chunks.length === 1 ? chunks[0]!.slice() : concat(chunks, size);
}

/** The chunks as one Uint8Array (the only chunk itself when there is one). */
export function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}
