import type { VerifySignature } from './api.js';
import { signatureHex, toBody, toSecrets } from './signature.js';

/**
 * One HMAC back end's check: whether `hex` (64 lowercase hex digits, already checked) is the
 * HMAC-SHA256 of `body` under `secret`, compared in constant time. A string body is UTF-8.
 */
export type HmacVerify = (secret: string, body: string | Uint8Array, hex: string) => boolean | Promise<boolean>;

/** One HMAC back end's digest: HMAC-SHA256 of `body` under `secret`. */
export type HmacSign = (secret: string, body: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/**
 * The one verification routine both entries use, each with its own HMAC back end: the header
 * must be well-formed and any of the usable secrets (from `toSecrets`) must match. Never rejects. A synchronous back end
 * (node:crypto) is not awaited, so a Node check costs one promise in all.
 */
export async function verifyBody(hmac: HmacVerify, body: string | Uint8Array, header: unknown, secrets: string[]): Promise<boolean> {
  const hex = signatureHex(header);
  if (!hex) return false;
  // Any matching secret wins: during a rotation the old and the new one are both valid.
  for (const key of secrets) {
    try {
      const match = hmac(key, body, hex);
      if (match === true || (match !== false && (await match))) return true;
    } catch {
      // A body the back end refuses is junk like any other.
    }
  }
  return false;
}

/** `verifyBody` for any raw body a user may pass (`false` for one that is not a body). */
export function verifyWith(hmac: HmacVerify, rawBody: unknown, header: unknown, secret: unknown): Promise<boolean> | false {
  const body = toBody(rawBody);
  return body !== undefined && verifyBody(hmac, body, header, toSecrets(secret));
}

/** `verifySignature` over an HMAC back end. */
export function verifySignatureWith(hmac: HmacVerify): VerifySignature {
  // One promise per call: verifyBody's own (an async wrapper here would add another).
  return (rawBody, header, secret) => verifyWith(hmac, rawBody, header, secret) || Promise.resolve(false);
}
