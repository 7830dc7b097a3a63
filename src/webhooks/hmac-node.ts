// HMAC-SHA256 on node:crypto, the fast path on Node: synchronous, no promise per digest.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

// A KeyObject made once per secret: createHmac with a Buffer key is several times slower on Node 24.
// Cleared when large, so that a caller passing many distinct secrets cannot grow it without bound.
const keys = new Map<string, KeyObject>();

function secretKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 64) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

/**
 * Whether `hex` is the HMAC of `body`. Compared as hex: the digest's 64 hex digits against the
 * header's, both as bytes (a fixed-length, one-to-one encoding, so the comparison stays
 * constant-time); that skips decoding the header and allocating a Buffer digest (BENCHMARKS.md).
 */
export function hmacVerify(secret: string, body: string | Uint8Array, hex: string): boolean {
  const digest = createHmac('sha256', secretKey(secret)).update(body).digest('hex');
  return timingSafeEqual(Buffer.from(digest, 'latin1'), Buffer.from(hex, 'latin1'));
}

/** The HMAC-SHA256 digest of `body`. */
export function hmacSign(secret: string, body: Uint8Array): Uint8Array {
  return createHmac('sha256', secretKey(secret)).update(body).digest();
}
