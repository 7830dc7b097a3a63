import { SvcError } from '../shared/svc-error.js';

/**
 * Why `verifyWebhook` refused a delivery: no usable secret was given, the body is not raw bytes,
 * the signature is missing or wrong, or the signed `timestamp` is unparsable, older than the
 * tolerance, or more than 5 minutes ahead (a replayed or forged delivery).
 */
export type WebhookVerificationReason =
  | 'no_secret'
  | 'unreadable_body'
  | 'missing_signature'
  | 'invalid_signature'
  | 'invalid_timestamp'
  | 'stale_timestamp'
  | 'future_timestamp';

/**
 * The webhook's signature is missing, malformed or does not match the secret (answer 401), or its
 * signed timestamp is outside the replay window (answer 400); `reason` says which. Do not process it.
 *
 * @example
 * ```ts
 * try { event = await verifyWebhook(rawBody, req.get('x-svc-signature'), secret) } catch (error) {
 *   if (error instanceof WebhookVerificationError) return res.status(401).json({ error: error.reason });
 *   throw error;
 * }
 * ```
 */
export class WebhookVerificationError extends SvcError {
  override name = 'WebhookVerificationError';
  /** Why the delivery was refused, as a stable code to log or branch on. */
  readonly reason: WebhookVerificationReason;

  /**
   * An error with a `[svc-sdk]` message and its reason code.
   *
   * @param message The message, starting `[svc-sdk] `.
   * @param reason Why the delivery was refused (`invalid_signature` unless said).
   */
  constructor(message: string, reason: WebhookVerificationReason = 'invalid_signature') {
    super(message);
    this.reason = reason;
  }
}

/**
 * The body is correctly signed but is not the service's delivery envelope (`event`, `version`,
 * `delivery_id`, `timestamp`, `data`): answer 400.
 *
 * @example
 * ```ts
 * if (error instanceof WebhookPayloadError) return res.status(400).json({ error: error.message });
 * ```
 */
export class WebhookPayloadError extends SvcError {
  override name = 'WebhookPayloadError';
}
