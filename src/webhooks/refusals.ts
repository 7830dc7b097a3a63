// The one table from a refused delivery to its answer: the fetch handler, the Node listener (also
// for a handler it serves through fetch) and `svc-sdk listen` all answer a refusal from here.
import type { Answer, WebhookRejectReason } from './types.js';

/** Every refusal a receiver answers itself: why a delivery was refused before `on`, or a method other than POST. */
export type RefusalReason = WebhookRejectReason | 'method_not_allowed';

/** The HTTP status of each refusal: 401 for the signature, 408/413 for the body, 405 for the method, 400 for the rest. */
export const REFUSAL_STATUS: Readonly<Record<RefusalReason, number>> = {
  method_not_allowed: 405,
  body_too_large: 413,
  body_timeout: 408,
  unreadable_body: 400,
  missing_signature: 401,
  invalid_signature: 401,
  invalid_payload: 400,
  invalid_timestamp: 400,
  stale_timestamp: 400,
  future_timestamp: 400,
};

/**
 * The answer to a refusal: its status, its `error` (the reason itself, or `problem` when more is
 * known, e.g. the envelope field a payload lacks; never a secret nor a body's value) and its headers
 * (`allow: POST` for a method; `connection: close` for a body left unread, so Node does not drain it).
 */
export function refusalAnswer(reason: RefusalReason, problem?: string): Answer {
  const headers = reason === 'method_not_allowed' ? ALLOW_POST : reason === 'body_too_large' || reason === 'body_timeout' ? CLOSE : undefined;
  return [REFUSAL_STATUS[reason], problem ?? reason, headers];
}

const ALLOW_POST = { allow: 'POST' };
const CLOSE = { connection: 'close' };
