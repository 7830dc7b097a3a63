import { toBytes, toHex, type RawBody } from './signature.js';
import type { HmacSign } from './verify.js';

/** `signPayload` over a given HMAC back end: `'sha256=<hex>'`, as the service sends it. */
export async function signWith(hmac: HmacSign, rawBody: RawBody, secret: string): Promise<string> {
  const body = toBytes(rawBody);
  if (!body) throw new TypeError('[svc-sdk] signPayload: rawBody must be a string, Uint8Array/Buffer or ArrayBuffer');
  if (typeof secret !== 'string' || secret === '') throw new TypeError('[svc-sdk] signPayload: secret must be a non-empty string');
  return `sha256=${toHex(await hmac(secret, body))}`;
}
