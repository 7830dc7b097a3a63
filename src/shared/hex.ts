// The one hex helper: webhook signatures and generated secrets use it.

/** Lowercase hex of some bytes: two digits a byte. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The bytes of a non-empty string of hex digit pairs, which the caller has checked (a bad pair reads as NaN, stored as 0). */
export function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}

/** `count` random bytes as lowercase hex (`2 * count` digits), from the platform's CSPRNG. */
export function randomHex(count: number): string {
  return toHex(crypto.getRandomValues(new Uint8Array(count)));
}
