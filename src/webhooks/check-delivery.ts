// The one verification path: signature, then envelope, then timestamp. `verifyWebhook` throws what
// it returns; the handler answers it. Written once so that both refuse exactly the same deliveries.
import type { WebhookVerificationReason } from './errors.js';
import { readWebhookEvent, type WebhookEvent } from './events.js';
import { DEFAULT_TOLERANCE_MS, FUTURE_SKEW_MS } from '../shared/limits.js';
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

// An ISO 8601 date and time WITH its zone: `Z` or an offset. Without one, Date.parse reads the time
// as this machine's local time, so one delivery would be fresh in UTC, stale at UTC+14 and from the
// future at UTC-8; the spec says UTC, so a zoneless time is refused, whatever the machine's zone.
const ZONED_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * What is wrong with a delivery's signed `timestamp` under this tolerance (ms; the default when
 * `undefined`), or `undefined` when it is in the window or there is no window (`false`). A
 * timestamp must be ISO 8601 with `Z` or an offset (`invalid_timestamp` otherwise).
 */
export function timestampProblem(
  timestamp: string,
  tolerance: number | false = DEFAULT_TOLERANCE_MS,
): 'invalid_timestamp' | 'stale_timestamp' | 'future_timestamp' | undefined {
  const age = Date.now() - Date.parse(timestamp);
  return tolerance === false
    ? undefined
    : Number.isNaN(age) || !ZONED_ISO.test(timestamp)
      ? 'invalid_timestamp'
      : age > tolerance
        ? 'stale_timestamp'
        : age < -FUTURE_SKEW_MS
          ? 'future_timestamp'
          : undefined;
}
