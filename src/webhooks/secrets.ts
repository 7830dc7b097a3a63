// Where the handler's signing secret comes from, and when: at the first delivery, not when the
// handler is made. Frameworks evaluate route modules while building (Next.js during `next build`),
// where the secret is rightly absent; a handler made there must not throw, only answer 500 (naming
// the fix) to a delivery that arrives while the secret is still missing.
import type { SigningSecret } from './signature.js';
import { isThenable } from './steps.js';

/** The handler's `secret` option: the secret(s), or a function that returns them (possibly async), read at the first delivery. */
export type WebhookSecretOption = SigningSecret | (() => SigningSecret | undefined | Promise<SigningSecret | undefined>);

/** The environment variable read when `secret` is omitted. */
export const SECRET_VARIABLE = 'SVC_WEBHOOK_SECRET';

/** A secret that is present but can never be one (an empty string, a number, an array of non-strings): the message says why, else `undefined`. */
export function malformedSecret(secret: unknown): string | undefined {
  if (secret === undefined || typeof secret === 'function') return undefined;
  const list = Array.isArray(secret) ? (secret as unknown[]) : [secret];
  return list.length && list.every((s) => typeof s === 'string' && s)
    ? undefined
    : `secret must be the webhook's signing secret (an array of them while rotating; an empty string is never a secret), or a function returning it, or omitted to read ${SECRET_VARIABLE} when the first delivery arrives`;
}

/** The secret could not be had at delivery time: the handler answers 500 with this message (it names the fix, never a secret). */
export class MissingSecretError extends Error {
  override name = 'MissingSecretError';
}

/**
 * The usable secrets, read once: a given string or array at once; a function's result, or
 * `SVC_WEBHOOK_SECRET`, at the first delivery (and again at the next while it is missing). Throws
 * (or rejects with) `MissingSecretError` while there is none.
 */
export function secretResolver(secret: WebhookSecretOption | undefined): () => string[] | Promise<string[]> {
  if (secret !== undefined && typeof secret !== 'function') {
    const list = [secret].flat();
    return () => list;
  }
  let known: string[] | undefined;
  let pending: Promise<string[]> | undefined;
  const accept = (value: unknown): string[] => {
    const problem = value === undefined || value === '' ? missing(secret) : malformedSecret(value);
    if (problem) throw new MissingSecretError(`[svc-sdk] createWebhookHandler: ${problem}`);
    return (known = [value as SigningSecret].flat());
  };
  return () => {
    if (known) return known;
    if (pending) return pending;
    let value;
    try {
      value = secret ? secret() : readVariable();
    } catch (error) {
      throw failed(error);
    }
    if (!isThenable(value)) return accept(value);
    // Concurrent first deliveries share one call; a failed one is tried again by the next delivery.
    return (pending = Promise.resolve(value)
      .then(accept, (error: unknown) => {
        throw failed(error);
      })
      .finally(() => (pending = undefined)));
  };
}

/** The secret function threw: its name only, since its message may hold the secret or a vault's answer. */
function failed(error: unknown): MissingSecretError {
  return new MissingSecretError(`[svc-sdk] createWebhookHandler: the secret function failed (${error instanceof Error ? error.name : typeof error})`);
}

function missing(secret: unknown): string {
  return secret
    ? 'the secret function returned no secret: return the secret returned when the webhook was registered'
    : `no signing secret: set ${SECRET_VARIABLE} to the secret returned when the webhook was registered (or pass secret, e.g. secret: () => process.env.YOUR_VARIABLE)`;
}

/** `SVC_WEBHOOK_SECRET` where there is a `process` (Node, Bun, Deno, Next.js); nothing elsewhere (Workers pass `secret`). */
function readVariable(): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[SECRET_VARIABLE];
}
