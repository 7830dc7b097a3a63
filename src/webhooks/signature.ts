// Header parsing and body normalisation shared by both HMAC back ends. Strict parsing comes first
// so that the constant-time comparison only ever sees two 32-byte digests, and junk never throws.
import { asBytes } from '../shared/bytes.js';

/** The raw request body, exactly as received: text (UTF-8), bytes (Node `Buffer` included) or an ArrayBuffer. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** One signing secret, or several at once while a secret is being rotated. */
export type SigningSecret = string | readonly string[];

/**
 * The `X-Svc-Signature` value as your framework gives it: Node's `req.headers` may hold an array
 * (a repeated header), which never verifies since it is ambiguous.
 */
export type SignatureHeader = string | readonly string[] | null | undefined;

/** The HTTP header that carries the signature (the spec's `X-Svc-Signature`; headers are case-insensitive). */
export const SIGNATURE_HEADER = 'x-svc-signature';

const SIGNATURE = /^sha256=[0-9a-f]{64}$/;
const encoder = /* @__PURE__ */ new TextEncoder();

/** The 32 digest bytes of a well-formed `sha256=<64 lowercase hex>` header, else `undefined`. */
export function parseSignature(header: unknown): Uint8Array | undefined {
  if (typeof header !== 'string' || !SIGNATURE.test(header)) return undefined;
  // The regex has vouched for 64 hex digits after `sha256=`: 32 pairs.
  return new Uint8Array(header.slice(7).match(/../g)!.map((pair) => parseInt(pair, 16)));
}

/** The body's bytes (a string is UTF-8 encoded), or `undefined` for anything that is not a body. */
export function toBytes(body: unknown): Uint8Array | undefined {
  try {
    return typeof body === 'string' ? encoder.encode(body) : asBytes(body);
  } catch {
    // A detached ArrayBuffer (transferred to a worker, say) cannot be read: not a body either.
  }
  return undefined;
}

/** The usable secrets: non-empty strings only (an empty key would accept anyone who knows it is empty). */
export function toSecrets(secret: unknown): string[] {
  const list: unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  return list.filter((s): s is string => typeof s === 'string' && s !== '');
}

/** Lowercase hex of some bytes. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
