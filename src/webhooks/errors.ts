import { SvcError } from '../shared/svc-error.js';

/**
 * The webhook's signature is missing, malformed or does not match the secret: answer 401, do not process.
 *
 * @example
 * ```ts
 * try { event = await verifyWebhook(rawBody, req.get('x-svc-signature'), secret) } catch (error) {
 *   if (error instanceof WebhookVerificationError) return res.status(401).json({ error: error.message });
 *   throw error;
 * }
 * ```
 */
export class WebhookVerificationError extends SvcError {
  override name = 'WebhookVerificationError';
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
