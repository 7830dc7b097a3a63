import { WebhookVerificationError } from './errors.js';
import { parseWebhookEvent, type WebhookEvent } from './events.js';
import { parseSignature, toBytes, toSecrets, type RawBody, type SignatureHeader, type SigningSecret } from './signature.js';
import { verifyBytesWith, type HmacVerify } from './verify.js';

/** `verifyWebhook` over a given HMAC back end: the typed event, or a clear error saying what failed. */
export async function verifyWebhookWith(
  hmac: HmacVerify,
  rawBody: RawBody,
  header: SignatureHeader,
  secret: SigningSecret,
): Promise<WebhookEvent> {
  const body = toBytes(rawBody);
  if (!body) throw verificationError('the body must be the raw request body: a string, Uint8Array/Buffer or ArrayBuffer (not parsed JSON)');
  if (toSecrets(secret).length === 0) throw verificationError('no secret given: pass the secret returned when the webhook was registered');
  if (!header) throw verificationError('the X-Svc-Signature header is missing');
  if (!parseSignature(header)) throw verificationError('the X-Svc-Signature header is not sha256=<64 lowercase hex digits>');
  if (!(await verifyBytesWith(hmac, body, header, secret))) {
    throw verificationError('the signature does not match: check the secret and that the body is the raw bytes received (a JSON body parser changes them)');
  }
  return parseWebhookEvent(body);
}

function verificationError(problem: string): WebhookVerificationError {
  return new WebhookVerificationError(`[svc-sdk] webhook not verified: ${problem}`);
}
