// Header parsing and body normalisation shared by both HMAC back ends. Strict parsing comes first
// so that the constant-time comparison only ever sees two 32-byte digests, and junk never throws.
import { asBytes } from '../shared/bytes.js';

/** The HTTP header that carries the signature (the spec's `X-Svc-Signature`; headers are case-insensitive). */
export const SIGNATURE_HEADER = 'x-svc-signature';

// The one place the header's form is defined: `sha256=` and 64 lowercase hex digits, nothing else.
const SIGNATURE = /^sha256=[0-9a-f]{64}$/;

/** The 64 hex digits of a well-formed `sha256=<hex>` header, else `undefined`. */
export function signatureHex(header: unknown): string | undefined {
  return typeof header === 'string' && SIGNATURE.test(header) ? header.slice(7) : undefined;
}

/**
 * The body as the HMAC back ends take it: a string as it is (node:crypto hashes it as UTF-8
 * without a copy), bytes as a Uint8Array; `undefined` for anything that is not a body.
 */
export function toBody(body: unknown): string | Uint8Array | undefined {
  try {
    return typeof body === 'string' ? body : asBytes(body);
  } catch {
    // A detached ArrayBuffer (transferred to a worker, say) cannot be read: not a body either.
  }
  return undefined;
}

/** The usable secrets: non-empty strings only (an empty key would accept anyone who knows it is empty). */
export function toSecrets(secret: unknown): string[] {
  // Not [secret].flat(): verifySignature reads the secrets on every call, and flat() cost 0.25 µs of its ~4.
  const list: unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  return list.filter((s) => typeof s === 'string' && s) as string[];
}
