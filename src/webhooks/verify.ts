import type { VerifySignature } from './api.js';
import { signatureHex, toBody, toSecrets } from './signature.js';
import type { HmacVerify } from './types.js';

/**
 * The one verification routine both entries use, each with its own HMAC back end: `hex` is the
 * header's 64 hex digits (`signatureHex`; `undefined` when the header is malformed), the body a
 * string or bytes (`toBody`; `undefined` when it is not a body: the receiver's is bytes already), and any of the usable secrets (from `toSecrets`) must match. Never throws nor
 * rejects: junk is `false`. A synchronous back end (node:crypto) gives the answer at once, with no
 * promise; Web Crypto's as a promise. One function, not a header-parsing wrapper around it: the
 * wrapper cost `verifySignature` alone 15 B min+gzip (611 B against its 600 B budget).
 */
export function verifyHex(hmac: HmacVerify, body: string | Uint8Array | undefined, hex: string | undefined, secrets: string[]): boolean | Promise<boolean> {
  // A string goes to the back end as it is (node:crypto hashes it without a copy).
  let result: boolean | Promise<boolean> = false;
  if (hex && body !== undefined) {
    // Any matching secret wins: during a rotation the old and the new one are both valid. Neither
    // back end throws here: node:crypto hashes any string or view (a detached one is empty), and
    // Web Crypto's refusals come as rejections.
    for (const key of secrets) {
      const match = hmac(key, body, hex);
      if (match === true) return true;
      // A promise (Web Crypto): true when it is, else what the secrets before it gave. One that
      // rejects (a body Web Crypto refuses, like a SharedArrayBuffer view) is junk too.
      const before: boolean | Promise<boolean> = result;
      if (match) result = match.then((valid) => valid || before, () => before);
    }
  }
  return result;
}

/** `verifySignature` over an HMAC back end. */
export function verifySignatureWith(hmac: HmacVerify): VerifySignature {
  return async (rawBody, header, secret) => verifyHex(hmac, toBody(rawBody), signatureHex(header), toSecrets(secret));
}
