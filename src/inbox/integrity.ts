// What a worker checks before `on` sees a stored delivery: that its body, kind and id are the ones
// the receiver verified and stored. The receiver stores a digest beside the body; a body edited in
// Redis afterwards (by hand, by a bug, by someone who can write to it) no longer matches, and the
// delivery becomes a dead letter instead of reaching `on`. Without `integrityKey` the digest is a
// SHA-256, which catches an edit that did not recompute it; with one it is an HMAC that nobody
// without the key can recompute.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The digest of a stored delivery: over its id, kind and body, each length-prefixed so no two entries share one. */
export function digestOf(deliveryId: string, kind: string, body: string, key: string | undefined): string {
  const hash = key === undefined ? createHash('sha256') : createHmac('sha256', key);
  for (const part of [deliveryId, kind, body]) hash.update(`${Buffer.byteLength(part)}:`).update(part);
  return `${key === undefined ? 'sha256' : 'hmac-sha256'}=${hash.digest('hex')}`;
}

/**
 * Why a stored delivery must not run, or `undefined` when it is the one stored. An entry without a
 * digest (stored by svc-sdk 0.4) runs only when no key is set: anyone who can edit the body could
 * recompute a plain digest as well, and with a key every entry must carry its HMAC.
 */
export function tamperingOf(deliveryId: string, kind: string, body: string, digest: unknown, key: string | undefined): string | undefined {
  if (typeof digest !== 'string') return key === undefined ? undefined : 'it has no digest (stored without integrityKey, or edited)';
  const expected = digestOf(deliveryId, kind, body, key);
  const same = digest.length === expected.length && timingSafeEqual(Buffer.from(digest), Buffer.from(expected));
  return same ? undefined : 'its body, kind or delivery id no longer match the digest the receiver stored (edited in Redis?)';
}
