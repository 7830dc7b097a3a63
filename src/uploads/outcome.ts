// The one rule that decides what a failed upload of uploadMany means for the documents stored: the
// whole promise "never a document twice" rests on it, so it lives here alone, beside nothing else.
import { APIError, ResponseValidationError } from '../core/errors.js';

/** What a failed upload may have left on the service. */
export type FailureOutcome = 'failed' | 'unknown';

/**
 * The outcome of an upload that threw `error`; `bodySent` says whether the whole body (its closing
 * multipart boundary included) was handed to fetch.
 *
 * `failed` (provably not stored; a rerun sends it) only where the service cannot have stored it:
 * - the body did not end: the service never got the closing boundary of the multipart body, so
 *   whatever it answered, it cannot have stored a document. A call refused before sending
 *   (ValidationError, a stream whose first chunk never came) and a connection refused (or a host
 *   not found) are such cases: fetch takes the body's first byte only once it is connected;
 * - the service answered 4xx (or a `{ success: false }` envelope), which refuses the document.
 *
 * `unknown` (it may be stored; never sent again unless `retryUnknown`) for a 2xx answer that could
 * not be read (ResponseValidationError: the service says it stored it, even one that answered
 * early), and everywhere else once the whole body was sent: every 5xx (a gateway's 502/504 or the
 * service's own 500 may come after the document was stored), a timeout, a reset, an abort, an
 * answer too large to read.
 */
export function outcomeOfFailure(error: unknown, bodySent: boolean): FailureOutcome {
  // A 2xx whose body could not be read: the service stored it.
  if (error instanceof ResponseValidationError) return 'unknown';
  if (!bodySent) return 'failed';
  if (error instanceof APIError && error.status < 500) return 'failed';
  return 'unknown';
}

/**
 * Whether `error` makes every further upload of the run pointless: the key is refused (401), or the
 * room is not the caller's (403) or does not exist (404). uploadMany then starts no new file.
 */
export function isFatal(error: unknown): boolean {
  return error instanceof APIError && (error.status === 401 || error.status === 403 || error.status === 404);
}

