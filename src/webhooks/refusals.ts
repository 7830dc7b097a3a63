// The one table from a refused delivery to its answer: the fetch handler, the Node listener (also
// for a handler it serves through fetch) and `svc-sdk listen` all answer a refusal from here.
import type { Answer, BodyFailure, WebhookRejectReason } from './types.js';

/** Every refusal a receiver answers itself: why a delivery was refused before `on`, or a method other than POST. */
export type RefusalReason = WebhookRejectReason | 'method_not_allowed';

/** The HTTP status of each refusal but the 400s (an unreadable body, a bad payload or timestamp): 401 for the signature, 408/413 for the body, 405 for the method. */
const REFUSAL_STATUS: Readonly<Partial<Record<RefusalReason, number>>> = {
  method_not_allowed: 405,
  body_too_large: 413,
  body_timeout: 408,
  missing_signature: 401,
  invalid_signature: 401,
};

/** The refusal of a body that could not be had: too large, failed (the sender went away), or not arrived in time. */
export const BODY_REFUSALS: Readonly<Record<BodyFailure, WebhookRejectReason>> = {
  too_large: 'body_too_large',
  unreadable: 'unreadable_body',
  timeout: 'body_timeout',
};

/**
 * The answer to a refusal: its status, its `error` (the reason itself, or `problem` when more is
 * known, e.g. the envelope field a payload lacks; never a secret nor a body's value) and its headers:
 * `allow: POST` for a method; `connection: close` for a body still trickling in, so the sender's
 * socket is freed whatever serves the handler. (The Node listener also closes after a body too large;
 * a fetch handler does not, as before: HTTP/2 servers refuse a `connection` header.)
 */
export function refusalAnswer(reason: RefusalReason, problem?: string): Answer {
  const headers = reason === 'method_not_allowed' ? ALLOW_POST : reason === 'body_timeout' ? CLOSE : undefined;
  return [REFUSAL_STATUS[reason] ?? 400, problem ?? reason, headers];
}

const ALLOW_POST = { allow: 'POST' };
const CLOSE = { connection: 'close' };
