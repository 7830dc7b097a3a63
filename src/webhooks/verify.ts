import { parseSignature, toBytes, toSecrets, type RawBody, type SignatureHeader, type SigningSecret } from './signature.js';

/** Checks one secret's HMAC-SHA256 of `body` against the 32 `signature` bytes in constant time. */
export type HmacVerify = (secret: string, body: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>;

/** Computes one secret's HMAC-SHA256 digest of `body`. */
export type HmacSign = (secret: string, body: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** `verifySignature` over a given HMAC back end (Node's `node:crypto` or Web Crypto). */
export async function verifyWith(
  hmac: HmacVerify,
  rawBody: RawBody,
  header: SignatureHeader,
  secret: SigningSecret,
): Promise<boolean> {
  const body = toBytes(rawBody);
  return body ? verifyBytesWith(hmac, body, header, secret) : false;
}

/** `verifyWith` for a body already in bytes: what the webhook handler calls, so it carries no conversions. */
export async function verifyBytesWith(
  hmac: HmacVerify,
  body: Uint8Array,
  header: SignatureHeader,
  secret: SigningSecret,
): Promise<boolean> {
  try {
    const signature = parseSignature(header);
    if (!signature) return false;
    // Any matching secret wins: during a rotation the old and the new one are both valid.
    for (const key of toSecrets(secret)) if (await hmac(key, body, signature)) return true;
  } catch {
    // A body the HMAC back end refuses is junk like any other.
  }
  return false;
}
