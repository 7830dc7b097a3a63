// Where the handler's signing secret comes from, and when: at the first delivery, not when the
// handler is made. Frameworks evaluate route modules while building (Next.js during `next build`),
// where the secret is rightly absent; a handler made there must not throw, only answer 500 (naming
// the fix) to a delivery that arrives while the secret is still missing. Every wait on a secret
// function has a deadline, and its secret is read again when a signature stops matching (a rotation).
// Every handler has one: a given secret is checked and trimmed once, when the handler is made, and
// read at once by every delivery.
import { malformedSecret } from './options.js';
import type { SigningSecret, WebhookSecretOption } from './types.js';

/** The environment variable read when `secret` is omitted. */
export const SECRET_VARIABLE = 'SVC_WEBHOOK_SECRET';

/** How often, at most, a secret function is read again for a signature that did not match, and a missing secret logged: once a minute. */
export const SECRET_INTERVAL_MS = 60_000;

/** The secret could not be had at delivery time: the handler answers 500 with this message (it names the fix, never a secret). */
export class MissingSecretError extends Error {
  override name = 'MissingSecretError';
}

/** The handler's signing secrets, as the receiver's first stage reads them. */
export interface SecretSource {
  /**
   * The usable secrets: the known ones at once; else the function's answer (or
   * `SVC_WEBHOOK_SECRET`), within `secretTimeoutMs`. Concurrent deliveries share one call. Throws
   * (or rejects with) `MissingSecretError` while there is none, logged at most once a minute.
   */
  read(): string[] | Promise<string[]>;
  /**
   * For a delivery whose signature matched none of them (a rotation?): the secret function's
   * secrets read again, unless it was called in the last minute; else `undefined`. Never rejects.
   * Only a secret function has it: a given secret or the variable cannot rotate under a handler.
   */
  readonly reread: (() => Promise<string[] | undefined>) | undefined;
}

/**
 * The secret source of the `secret` option (checked already); `timeoutMs` bounds every call of a
 * secret function, whose answers are held to options.ts's `malformedSecret`, as a given secret is.
 */
export function secretSource(secret: WebhookSecretOption | undefined, timeoutMs: number): SecretSource {
  let warned = false;
  let loggedAt = -Infinity;
  let readAt = 0; // Set by every lookup: a reread always follows one (the delivery's own read).
  let pending: Promise<string[]> | undefined;

  /** The secrets of a value, trimmed (a file's trailing newline), or `MissingSecretError`. */
  const accept = (value: unknown): string[] => {
    const list = [value as SigningSecret].flat(); // undefined: [undefined], no secret
    const trimmed = list.map((s) => (typeof s === 'string' ? s.trim() : s));
    const problem = trimmed[0] === undefined || trimmed[0] === '' ? missing(secret) : malformedSecret(trimmed);
    if (problem) throw new MissingSecretError(`[svc-sdk] createWebhookHandler: ${problem}`);
    if (!warned && trimmed.some((s, i) => s !== list[i])) {
      warned = true;
      console.warn('[svc-sdk] createWebhookHandler: the secret has whitespace around it (a trailing newline from a file?); it is used trimmed: remove it where the secret is kept');
    }
    return trimmed;
  };
  // A given secret is checked (malformedSecret) and trimmed once, when the handler is made.
  let known = secret !== undefined && typeof secret !== 'function' ? accept(secret) : undefined;

  /**
   * Calls the secret function (or reads the variable) under the deadline; concurrent deliveries
   * share the call until it settles. Past the deadline the call is given up (a late answer is
   * ignored), and the next delivery calls again. A failure is logged once a minute: a setup error,
   * not a bad delivery, that the operator must see, but not once per request.
   */
  const lookup = (): Promise<string[]> =>
    (pending ??= (async () => {
      readAt = Date.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const value = await Promise.race([
          new Promise((resolve) => resolve(secret ? (secret as () => unknown)() : readVariable())).catch((error: unknown) => {
            throw failed(error);
          }),
          new Promise((_, reject) => {
            timer = setTimeout(reject, timeoutMs, new MissingSecretError(`[svc-sdk] createWebhookHandler: the secret function did not answer within ${timeoutMs} ms (secretTimeoutMs)`));
          }),
        ]);
        return (known = accept(value));
      } catch (error) {
        const now = Date.now();
        if (now - loggedAt >= SECRET_INTERVAL_MS) {
          loggedAt = now;
          console.error((error as Error).message);
        }
        throw error;
      } finally {
        clearTimeout(timer);
        pending = undefined;
      }
    })());

  /** A secret function's secrets read again for a signature that matched none (see SecretSource.reread). */
  const reread = async (): Promise<string[] | undefined> => {
    // At most once a minute, counted from the last call: a flood of forgeries costs the vault one call a minute.
    if (Date.now() - readAt < SECRET_INTERVAL_MS) return undefined;
    try {
      // The known secrets stay in use until the function answers.
      return await lookup();
    } catch {
      // Logged by the lookup; the delivery stays refused (undefined).
    }
  };

  return { read: () => known ?? lookup(), reread: typeof secret === 'function' ? reread : undefined };
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
