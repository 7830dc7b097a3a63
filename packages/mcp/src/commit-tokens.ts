// The commit token of a write's preview: what lets the second call of a write tool act. It is an
// HMAC, under a key drawn once per process, over the tool's name, its exact arguments and an
// expiry; it is spent on use. The model can copy a token, but it cannot make one for arguments it
// was not shown a preview of, stretch its expiry, or use it twice.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** How long a preview's token can commit, by default: long enough to read the preview, short enough to be about it. */
export const DEFAULT_COMMIT_TTL_MS = 5 * 60_000;

/** Why a token was refused; every case is a refusal, nothing is sent. */
export type CommitRefusal = 'malformed' | 'forged' | 'other-arguments' | 'expired' | 'replayed';

/** The key of this process: tokens never outlive it, and nothing outside it can mint one. */
const PROCESS_KEY = randomBytes(32);

/** A token as handed to the model: `v1.<id>.<expiry ms>.<hmac hex>`. */
const TOKEN_PATTERN = /^v1\.([0-9a-f-]{36})\.(\d{13})\.([0-9a-f]{64})$/;

/**
 * Mints and checks commit tokens. One ledger per server process is the intended use (the spent
 * tokens it remembers are what makes a token single-use); `now` is a test seam.
 */
export class CommitLedger {
  /** Ids minted and not yet expired, with their expiry. */
  readonly #minted = new Map<string, number>();
  /** Ids spent and not yet expired, with their expiry. */
  readonly #spent = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A token that commits `tool` with exactly `args` for `ttlMs`; also returns its expiry. */
  mint(tool: string, args: unknown, ttlMs = DEFAULT_COMMIT_TTL_MS): { token: string; expiresAt: string } {
    const id = randomUUID();
    const expires = this.#now() + ttlMs;
    const token = `v1.${id}.${expires}.${mac(id, expires, tool, args)}`;
    this.#forgetExpired();
    this.#minted.set(id, expires);
    return { token, expiresAt: new Date(expires).toISOString() };
  }

  /** Checks `token` for `tool` and `args` without spending it (a commit that asks the user first checks before asking). */
  check(token: string, tool: string, args: unknown): CommitRefusal | undefined {
    const match = TOKEN_PATTERN.exec(token);
    if (!match) return 'malformed';
    const [, id, expiresText, given] = match as unknown as [string, string, string, string];
    const expires = Number(expiresText);
    const expected = Buffer.from(mac(id, expires, tool, args), 'hex');
    if (!timingSafeEqual(Buffer.from(given, 'hex'), expected)) {
      // Told apart only to say which fix helps (preview these arguments, or use the token as
      // minted); both are refused the same way.
      return this.#minted.has(id) ? 'other-arguments' : 'forged';
    }
    if (this.#spent.has(id)) return 'replayed';
    if (this.#now() >= expires) return 'expired';
    return undefined;
  }

  /** Checks and spends `token`: a second use is `replayed`. */
  spend(token: string, tool: string, args: unknown): CommitRefusal | undefined {
    const refusal = this.check(token, tool, args);
    if (refusal !== undefined) return refusal;
    const [, id, expires] = TOKEN_PATTERN.exec(token)!;
    this.#forgetExpired();
    this.#spent.set(id!, Number(expires));
    return undefined;
  }

  /** Tokens are remembered until they expire (after that, `expired` refuses them anyway). */
  #forgetExpired(): void {
    const now = this.#now();
    for (const ids of [this.#minted, this.#spent]) for (const [id, expires] of ids) if (expires <= now) ids.delete(id);
  }
}

/** The HMAC binding a token's id and expiry to one tool and its exact arguments (canonical JSON: key order does not matter). */
function mac(id: string, expires: number, tool: string, args: unknown): string {
  return createHmac('sha256', PROCESS_KEY).update(JSON.stringify([id, expires, tool, canonical(args)])).digest('hex');
}

/** `value` with object keys sorted at every depth, so `{a, b}` and `{b, a}` bind the same token. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, field]) => field !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, field]) => [key, canonical(field)]),
    );
  }
  return value;
}

/**
 * The state a commit's confirmation round carries (MCP `requestState`): an HMAC of the token, so
 * the answer of a confirmation counts only on the retry of the very commit it was asked for.
 */
export function confirmationState(token: string): string {
  return createHmac('sha256', PROCESS_KEY).update(`confirm\0${token}`).digest('base64url');
}

/** The ledger of this process: every server made by createMcpServer shares it (an HTTP server makes one per request). */
export const processLedger = new CommitLedger();
