// The one hex helper: webhook signatures, multipart boundaries and generated secrets all use it.

/** Lowercase hex of some bytes: two digits a byte. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += (byte < 16 ? '0' : '') + byte.toString(16);
  return hex;
}

/** The bytes of a string of hex digit pairs, which the caller has checked (a bad pair reads as 0). */
export function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16) || 0;
  return bytes;
}

/** `count` random bytes as lowercase hex (`2 * count` digits), from the platform's CSPRNG. */
export function randomHex(count: number): string {
  return toHex(crypto.getRandomValues(new Uint8Array(count)));
}
