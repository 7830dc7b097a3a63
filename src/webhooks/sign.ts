import type { SignPayload } from './api.js';
import { toHex } from '../shared/hex.js';
import { toBody } from './signature.js';
import type { HmacSign, RawBody } from './types.js';

const encoder = /* @__PURE__ */ new TextEncoder();

/** `signPayload` over an HMAC back end: `'sha256=<hex>'`, as the service sends it. */
export function signPayloadWith(hmac: HmacSign): SignPayload {
  return (rawBody, secret) => sign(hmac, rawBody, secret);
}

async function sign(hmac: HmacSign, rawBody: RawBody, secret: string): Promise<string> {
  const body = toBody(rawBody);
  if (body === undefined) throw new TypeError('[svc-sdk] signPayload: rawBody must be a string, Uint8Array/Buffer or ArrayBuffer');
  if (typeof secret !== 'string' || secret === '') throw new TypeError('[svc-sdk] signPayload: secret must be a non-empty string');
  return `sha256=${toHex(await hmac(secret, typeof body === 'string' ? encoder.encode(body) : body))}`;
}
