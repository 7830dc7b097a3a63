/**
 * The bytes of a binary value as a `Uint8Array` over the same memory (no copy): a Uint8Array (Node's
 * `Buffer` included) as it is, an ArrayBuffer or any other view wrapped; `undefined` for anything
 * else. Throws for a detached ArrayBuffer, which has no bytes to read.
 */
export function asBytes(value: unknown): Uint8Array | undefined {
  // An ArrayBuffer has no `buffer` and no `byteOffset`: the whole of it.
  return value instanceof Uint8Array
    ? value
    : value instanceof ArrayBuffer || ArrayBuffer.isView(value)
      ? new Uint8Array((value as ArrayBufferView).buffer ?? value, (value as ArrayBufferView).byteOffset, value.byteLength)
      : undefined;
}
