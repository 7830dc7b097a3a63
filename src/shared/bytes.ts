/**
 * The bytes of a binary value as a `Uint8Array` over the same memory (no copy): a Uint8Array (Node's
 * `Buffer` included) as it is, an ArrayBuffer or any other view wrapped; `undefined` for anything
 * else. Throws for a detached ArrayBuffer, which has no bytes to read.
 */
export function asBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return undefined;
}
