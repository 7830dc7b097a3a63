import type { VerifySignature } from './api.js';
import { asBytes } from '../shared/bytes.js';
import { signatureHex, toSecrets } from './signature.js';

/**
 * One HMAC back end's check: whether `hex` (64 lowercase hex digits, already checked) is the
 * HMAC-SHA256 of `body` under `secret`, compared in constant time. A string body is UTF-8.
 */
export type HmacVerify = (secret: string, body: string | Uint8Array, hex: string) => boolean | Promise<boolean>;

/** One HMAC back end's digest: HMAC-SHA256 of `body` under `secret`. */
export type HmacSign = (secret: string, body: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/**
 * The one verification routine both entries use, each with its own HMAC back end: the header
 * must be well-formed, the body a string or bytes, and any of the usable secrets (from
 * `toSecrets`) must match. Never rejects: junk is `false`. A synchronous back end (node:crypto)
 * is not awaited, so a Node check costs this one promise in all.
 */
export async function verifyBody(hmac: HmacVerify, rawBody: unknown, header: unknown, secrets: string[]): Promise<boolean> {
  const hex = signatureHex(header);
  try {
    // A string goes to the back end as it is (node:crypto hashes it without a copy).
    const body = typeof rawBody === 'string' ? rawBody : asBytes(rawBody);
    if (hex && body !== undefined) {
      // Any matching secret wins: during a rotation the old and the new one are both valid.
      for (const key of secrets) {
        const match = hmac(key, body, hex);
        if (match === true || (match !== false && (await match))) return true;
      }
    }
  } catch {
    // A detached buffer, or a body the back end refuses (Web Crypto and a SharedArrayBuffer): junk like any other.
  }
  return false;
}

/** `verifySignature` over an HMAC back end. */
export function verifySignatureWith(hmac: HmacVerify): VerifySignature {
  return (rawBody, header, secret) => verifyBody(hmac, rawBody, header, toSecrets(secret));
}
