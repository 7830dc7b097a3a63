// The one verification path: signature, then envelope, then timestamp. `verifyWebhook` throws what
// it returns; the handler answers it. Written once so that both refuse exactly the same deliveries.
import type { WebhookVerificationReason } from './errors.js';
import { readWebhookEvent, type WebhookEvent } from './events.js';
import { timestampProblem } from './replay.js';
import { signatureHex } from './signature.js';
import type { HmacVerify } from './types.js';
import { verifyHex } from './verify.js';

/** Why a delivery's own content was refused: its signature, its envelope or its timestamp. */
export type DeliveryProblem = Exclude<WebhookVerificationReason, 'no_secret' | 'unreadable_body'> | 'invalid_payload';

/** A delivery refused by `checkDelivery`: the reason, and for some a more precise message. */
export class Refusal {
  constructor(
    readonly reason: DeliveryProblem,
    /** What is wrong, when more is known than the reason says (never a secret nor a body's value). */
    readonly problem?: string,
  ) {}
}

const MISSING = /* @__PURE__ */ new Refusal('missing_signature');
const MALFORMED = /* @__PURE__ */ new Refusal('invalid_signature', 'the X-Svc-Signature header is not sha256=<64 lowercase hex digits>');
const NO_MATCH = /* @__PURE__ */ new Refusal('invalid_signature');

/**
 * Checks one delivery: the signature over the raw `body` under any of `secrets`, then the envelope
 * (`event`, `version`, `delivery_id`, `timestamp`, `data`), then the signed timestamp against the
 * replay window. The event, or a `Refusal`: at once over a synchronous back end (node:crypto), as a
 * promise over Web Crypto; never throws nor rejects. `observer` hears the event once its signature
 * and envelope checked out, before its timestamp is (the receiver's hooks: `onVerified`).
 */
export function checkDelivery(
  hmac: HmacVerify,
  body: string | Uint8Array,
  header: unknown,
  secrets: string[],
  tolerance: number | false | undefined,
  observer?: { verified(event: WebhookEvent): void },
): WebhookEvent | Refusal | Promise<WebhookEvent | Refusal> {
  if (!header) return MISSING;
  const hex = signatureHex(header);
  if (!hex) return MALFORMED;
  /** The rest of the check, once the signature is known to match or not. */
  const checkSigned = (match: boolean): WebhookEvent | Refusal => {
    if (!match) return NO_MATCH;
    const event = readWebhookEvent(body);
    // Not a delivery: the message names the field, never a value.
    if (typeof event === 'string') return new Refusal('invalid_payload', event);
    observer?.verified(event);
    const late = timestampProblem(event.timestamp, tolerance);
    return late ? new Refusal(late) : event;
  };
  // The raw bytes: the signature covers them exactly, so nothing may parse or re-encode them first.
  // A synchronous back end (node:crypto) answers without a promise to wait for: neither does the check.
  const match = verifyHex(hmac, body, hex, secrets);
  return typeof match === 'boolean' ? checkSigned(match) : match.then(checkSigned);
}
