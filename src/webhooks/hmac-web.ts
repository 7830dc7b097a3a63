// HMAC-SHA256 on Web Crypto, for edge runtimes, browsers, Deno and Bun.
import { fromHex } from '../shared/hex.js';

const encoder = /* @__PURE__ */ new TextEncoder();
// importKey is the slow part of a verification: each secret is imported once. Cleared when large,
// so that a caller passing many distinct secrets cannot grow it without bound.
const keys = new Map<string, Promise<CryptoKey>>();

function importKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 64) keys.clear();
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

/** Whether `hex` is the HMAC of `body`; `subtle.verify` compares in constant time. */
export async function hmacVerify(secret: string, body: string | Uint8Array, hex: string): Promise<boolean> {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  return crypto.subtle.verify('HMAC', await importKey(secret), fromHex(hex) as Uint8Array<ArrayBuffer>, bytes as Uint8Array<ArrayBuffer>);
}

/** The HMAC-SHA256 digest of `body`. */
export async function hmacSign(secret: string, body: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', await importKey(secret), body as Uint8Array<ArrayBuffer>));
}
