/**
 * The one bounded body reader: a body read to its end, or given up as soon as it passes `maxBytes`
 * (`undefined` then), so the sender is stopped and the rest is never read, let alone buffered. The
 * client (answers), the receiver (deliveries), the emulator (requests) and the tools (the MCP
 * server's Node listener, the CLI's printed answers, through svc-sdk/internal) read with it.
 */

/** What can be read: a web stream, or chunks in order (a Node request, any async iterable). A missing body reads as no bytes. */
export type BoundedSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null | undefined;

/** How `readAtMost` reads. */
export interface ReadAtMostOptions {
  /** Never one of the source's chunks itself (a view into a larger buffer, or one its sender may reuse), for bytes kept after the read. */
  readonly own?: boolean | undefined;
  /**
   * The length the body declares (at most `maxBytes`, checked by the caller): read into one buffer
   * of that size, with no chunk list and no joined copy (a 50 MB answer would be held twice while
   * it is joined). A longer body grows the buffer up to `maxBytes`; a shorter one is returned as long as it is.
   */
  readonly declared?: number | undefined;
  /** Past `maxBytes`, answer what was read (more than `maxBytes`: the caller sees there was more) instead of `undefined`. */
  readonly partial?: boolean | undefined;
}

// Pure: a bundle that never reads a body (verifySignature alone) drops it (15 B min+gzip, over its 600 B budget).
const DEFAULTS: ReadAtMostOptions = /* @__PURE__ */ Object.freeze({});

/**
 * Reads `body` to its end, or stops as soon as it passes `maxBytes`: `undefined` then (or, with
 * `partial`, the bytes read so far), and the source is cancelled (a stream) or closed (an iterable).
 *
 * @param body The stream or chunks to read.
 * @param maxBytes The most bytes the body may have.
 * @param options `own`, `declared` and `partial`, as ReadAtMostOptions says.
 */
export function readAtMost(body: BoundedSource, maxBytes: number, options: ReadAtMostOptions & { readonly partial: true }): Promise<Uint8Array>;
export function readAtMost(body: BoundedSource, maxBytes: number, options?: ReadAtMostOptions): Promise<Uint8Array | undefined>;
export async function readAtMost(body: BoundedSource, maxBytes: number, options: ReadAtMostOptions = DEFAULTS): Promise<Uint8Array | undefined> {
  if (body && !('getReader' in body)) return readIterable(body, maxBytes, options);
  if (options.declared !== undefined && body) return readDeclared(body, options.declared, maxBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body?.getReader();
  for (let chunk; reader && !(chunk = await reader.read()).done; ) {
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      // Not awaited: a tee'd body (msw hands handlers one) settles its cancel only once every branch is cancelled.
      reader.cancel().catch(() => {});
      if (!options.partial) return undefined;
      chunks.push(chunk.value);
      break;
    }
    chunks.push(chunk.value);
  }
  return options.own && chunks.length === 1 ? chunks[0]!.slice() : concat(chunks, size);
}

/** `readAtMost` over chunks in order; leaving the loop early closes the source (a Node request stops being read). */
async function readIterable(body: AsyncIterable<Uint8Array>, maxBytes: number, options: ReadAtMostOptions): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    chunks.push(chunk);
    if (size > maxBytes) return options.partial ? concat(chunks, size) : undefined;
  }
  return options.own && chunks.length === 1 ? chunks[0]!.slice() : concat(chunks, size);
}

/** A body of a declared length, read into one buffer of that size (see ReadAtMostOptions.declared). */
async function readDeclared(body: ReadableStream<Uint8Array>, declared: number, limit: number): Promise<Uint8Array | undefined> {
  let bytes = new Uint8Array(declared);
  const reader = body.getReader();
  let at = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const end = at + chunk.value.byteLength;
    if (end > bytes.byteLength) {
      if (end > limit) {
        reader.cancel().catch(() => {});
        return undefined;
      }
      const grown = new Uint8Array(Math.min(limit, Math.max(end, bytes.byteLength * 2)));
      grown.set(bytes.subarray(0, at));
      bytes = grown;
    }
    bytes.set(chunk.value, at);
    at = end;
  }
  // A view of what came: the whole buffer, or the part a shorter body filled (no copy either way).
  return bytes.subarray(0, at);
}

/**
 * The chunks as one Uint8Array (the only chunk itself when there is one).
 *
 * @param chunks The chunks, in order.
 * @param size Their total length in bytes.
 */
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
