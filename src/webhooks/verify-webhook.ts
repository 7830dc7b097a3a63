import type { VerifyWebhook } from './api.js';
import { checkDelivery, Refusal } from './check-delivery.js';
import { WebhookPayloadError, WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
import type { WebhookEvent } from './events.js';
import { DEFAULT_TOLERANCE_MS } from '../shared/limits.js';
import { isTolerance } from './replay.js';
import { toBody, toSecrets } from './signature.js';
import type { HmacVerify, RawBody, SignatureHeader, SigningSecret, VerifyWebhookOptions } from './types.js';

const MESSAGES: Record<WebhookVerificationReason, string> = {
  no_secret: 'no secret given: pass the secret returned when the webhook was registered (an empty string is never a secret)',
  unreadable_body: 'the body must be the raw request body: a string, Uint8Array/Buffer or ArrayBuffer',
  missing_signature: 'the X-Svc-Signature header is missing',
  invalid_signature: 'the signature does not match: check the secret and that the body is the raw bytes received (a JSON body parser changes them)',
  invalid_timestamp: 'the signed "timestamp" is not an ISO 8601 date and time with Z or an offset (a time without its zone would be read as local time)',
  stale_timestamp: 'the signed "timestamp" is older than the tolerance: a replayed or long-delayed delivery',
  future_timestamp: 'the signed "timestamp" is more than 5 minutes ahead of this clock: check the clock, or a forged delivery',
};

/** `verifyWebhook` over an HMAC back end: the typed event, or a clear error saying what failed. */
export function verifyWebhookWith(hmac: HmacVerify): VerifyWebhook {
  return (rawBody, header, secret, options) => verify(hmac, rawBody, header, secret, options);
}

async function verify(
  hmac: HmacVerify,
  rawBody: RawBody,
  header: SignatureHeader,
  secret: SigningSecret,
  options?: VerifyWebhookOptions,
): Promise<WebhookEvent> {
  const tolerance = options?.tolerance ?? DEFAULT_TOLERANCE_MS;
  if (!isTolerance(tolerance)) {
    throw new TypeError('[svc-sdk] verifyWebhook: options.tolerance must be a number of ms >= 0, or false to turn the replay window off');
  }
  const body = toBody(rawBody);
  if (body === undefined) throw verificationError('unreadable_body', bodyHint(rawBody));
  const secrets = toSecrets(secret);
  if (!secrets.length) throw verificationError('no_secret');
  const result = await checkDelivery(hmac, body, header, secrets, tolerance);
  if (!(result instanceof Refusal)) return result;
  throw result.reason === 'invalid_payload' ? new WebhookPayloadError(result.problem!) : verificationError(result.reason, result.problem);
}

/** What a non-body most likely is, and the fix. */
function bodyHint(rawBody: unknown): string {
  const fix = 'pass the raw request body (a string, Uint8Array/Buffer or ArrayBuffer)';
  if (rawBody === undefined) {
    return `the body is undefined: with express.raw({ type }), the type must match the delivery's Content-Type (application/json); ${fix}, or use toNodeListener(createWebhookHandler(...)), which reads it itself`;
  }
  if (typeof rawBody === 'object' && rawBody !== null && !(rawBody instanceof ArrayBuffer) && !ArrayBuffer.isView(rawBody)) {
    return `the body is an already parsed object (express.json() or another JSON parser ran first, and the signed bytes are gone): ${fix}, e.g. with express.raw({ type: 'application/json' }) on this route`;
  }
  return MESSAGES.unreadable_body;
}

function verificationError(reason: WebhookVerificationReason, problem = MESSAGES[reason]): WebhookVerificationError {
  return new WebhookVerificationError(`[svc-sdk] webhook not verified: ${problem}`, reason);
}
