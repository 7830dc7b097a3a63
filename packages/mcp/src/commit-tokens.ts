// The commit token of a write's preview: what lets the second call of a write tool act. It is an
// HMAC, under a key made once and kept in the user's state folder (0600), over the tool's name, its
// exact arguments, the content the preview showed (an upload's files), the service's base URL, the
// API key's identity (a hash, never the key) and an expiry. It is spent once across every server
// process of that user: a spent token leaves a marker file created with O_EXCL in the state folder,
// so of two processes racing to spend one token exactly one wins. Hosts that start a server per
// call (the MCP Inspector's CLI) can therefore commit a preview another process made; a token
// carried to another service or API key, or to other arguments, commits nothing.
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** How long a preview's token can commit, by default: long enough to read the preview, short enough to be about it. */
export const DEFAULT_COMMIT_TTL_MS = 5 * 60_000;

/** Why a token was refused; every case is a refusal, nothing is sent. */
export type CommitRefusal = 'malformed' | 'forged' | 'other-binding' | 'expired' | 'replayed' | 'record-gone';

/** What a token is bound to besides its id and expiry. */
export interface TokenBinding {
  /** The tool's name. */
  readonly tool: string;
  /** Its exact arguments (canonical JSON: key order does not matter). */
  readonly args: unknown;
  /** The service the client calls (its base URL). */
  readonly service: string;
  /** The API key's identity (a hash of the key). */
  readonly keyId: string;
  /** The digest of the content the preview showed, when the tool binds content. */
  readonly content?: string | undefined;
}

/** A token as handed to the model: `v2.<id>.<expiry ms>.<stamp>.<binding hmac>`. */
const TOKEN_PATTERN = /^v2\.([0-9a-f-]{36})\.(\d{13})\.([0-9a-f]{16})\.([0-9a-f]{64})$/;

/** Folders and files the ledger keeps under the state folder. */
const KEY_FILE = 'commit-key';
const SPENT = join('commit-tokens', 'spent');
const RECORDS = join('commit-tokens', 'previews');
/** The longest a ledger goes without reading the folders (for the files other processes leave). */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Mints, checks and spends commit tokens under the key of one state folder. Every server using
 * that folder (every process of the user, by default) shares the key and the spent-token ledger;
 * `now` is a test seam.
 */
export class CommitLedger {
  readonly #dir: string;
  readonly #now: () => number;
  #key: Promise<Buffer> | undefined;
  /** The earliest expiry of a marker or record this ledger knows of: no sweep of the folders before it. */
  #nextExpiry = 0;
  /** The folders made already (a mkdir per call costs a syscall). */
  readonly #made = new Set<string>();

  constructor(stateDir: string, now: () => number = Date.now) {
    this.#dir = stateDir;
    this.#now = now;
  }

  /**
   * A token that commits exactly `binding` for `ttlMs`; `record` (the content a preview showed,
   * as JSON) is kept in the state folder for the commit, under the token's id.
   */
  async mint(binding: TokenBinding, ttlMs = DEFAULT_COMMIT_TTL_MS, record?: unknown): Promise<{ token: string; expiresAt: string }> {
    const key = await this.#keyOnce();
    const id = randomUUID();
    const expires = this.#now() + ttlMs;
    await this.#forgetExpired();
    if (record !== undefined) {
      await this.#folder(RECORDS);
      await writeFile(join(this.#dir, RECORDS, `${expires}-${id}.json`), JSON.stringify(record), { mode: 0o600, flag: 'wx' });
      this.#nextExpiry = Math.min(this.#nextExpiry, expires);
    }
    const token = `v2.${id}.${expires}.${stamp(key, id, expires)}.${mac(key, id, expires, binding)}`;
    return { token, expiresAt: new Date(expires).toISOString() };
  }

  /** The content record a token's preview kept (undefined: none was kept, or it is gone). */
  async record(token: string): Promise<unknown> {
    const match = TOKEN_PATTERN.exec(token);
    if (!match) return undefined;
    const bytes = await readFile(join(this.#dir, RECORDS, `${match[2]}-${match[1]}.json`)).catch(() => undefined);
    return bytes === undefined ? undefined : (JSON.parse(bytes.toString()) as unknown);
  }

  /** Checks `token` for `binding` without spending it (a commit that asks the user first checks before asking). */
  async check(token: string, binding: TokenBinding): Promise<CommitRefusal | undefined> {
    const match = TOKEN_PATTERN.exec(token);
    if (!match) return 'malformed';
    const [, id, expiresText, givenStamp, given] = match as unknown as [string, string, string, string, string];
    const expires = Number(expiresText);
    const key = await this.#keyOnce();
    // Told apart only to say which fix helps (preview these arguments, or use the token as minted);
    // both are refused the same way.
    if (!same(givenStamp, stamp(key, id, expires))) return 'forged';
    if (!same(given, mac(key, id, expires, binding))) return 'other-binding';
    if (await exists(join(this.#dir, SPENT, `${expires}-${id}`))) return 'replayed';
    if (this.#now() >= expires) return 'expired';
    return undefined;
  }

  /** Checks and spends `token`: a second use, in this process or any other on this state folder, is `replayed`. */
  async spend(token: string, binding: TokenBinding): Promise<CommitRefusal | undefined> {
    const refusal = await this.check(token, binding);
    if (refusal !== undefined) return refusal;
    const [, id, expires] = TOKEN_PATTERN.exec(token)!;
    await this.#folder(SPENT);
    try {
      // O_EXCL: of every process spending this token, exactly one creates the marker.
      const marker = await open(join(this.#dir, SPENT, `${expires}-${id}`), constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
      await marker.close();
      this.#nextExpiry = Math.min(this.#nextExpiry, Number(expires));
    } catch (error) {
      if ((error as { code?: string }).code === 'EEXIST') return 'replayed';
      throw error;
    }
    return undefined;
  }

  /** The state of a commit's confirmation round (MCP `requestState`): an HMAC of the token under the key. */
  async confirmationState(token: string): Promise<string> {
    return createHmac('sha256', await this.#keyOnce()).update(`confirm\0${token}`).digest('base64url');
  }

  #keyOnce(): Promise<Buffer> {
    this.#key ??= loadKey(this.#dir);
    // A failed load (a folder that cannot be written) is tried again on the next call.
    this.#key.catch(() => (this.#key = undefined));
    return this.#key;
  }

  async #folder(folder: string): Promise<void> {
    if (this.#made.has(folder)) return;
    await mkdir(join(this.#dir, folder), { recursive: true, mode: 0o700 });
    this.#made.add(folder);
  }

  /**
   * Markers and records are kept until their token expires (after that, `expired` refuses it
   * anyway); the folders are read only once the earliest expiry this ledger knows of has passed.
   */
  async #forgetExpired(): Promise<void> {
    const now = this.#now();
    if (now < this.#nextExpiry) return;
    let next = Infinity;
    for (const folder of [SPENT, RECORDS]) {
      const names = await readdir(join(this.#dir, folder)).catch(() => [] as string[]);
      for (const name of names) {
        const expires = Number(name.split('-')[0]);
        if (expires <= now) await rm(join(this.#dir, folder, name), { force: true });
        else next = Math.min(next, expires);
      }
    }
    // Other processes add files too: read again within a minute whatever this one knows.
    this.#nextExpiry = Math.min(next, now + SWEEP_INTERVAL_MS);
  }
}

/**
 * The key of `dir`, made once: 32 random bytes written to a private temporary file and linked into
 * place (so racing processes all end with the one key that won), refused when it is a link or
 * readable by others.
 */
async function loadKey(dir: string): Promise<Buffer> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, KEY_FILE);
  // A candidate every time (once per ledger): the link fails when a key is in place (EEXIST), and
  // a link that failed otherwise leaves no key, which the lstat below reports.
  const temporary = join(dir, `${KEY_FILE}.${randomUUID()}.tmp`);
  await writeFile(temporary, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  await link(temporary, path).catch(() => {});
  await unlink(temporary);
  const stats = await lstat(path);
  if (!stats.isFile() || (stats.mode & 0o077) !== 0) {
    throw new Error(`[svc-sdk] the commit key ${path} is a link or readable by others: remove it (a new one is made) and check who can write ${dir}`);
  }
  const key = Buffer.from((await readFile(path, 'utf8')).trim(), 'hex');
  if (key.length !== 32) throw new Error(`[svc-sdk] the commit key ${path} is damaged: remove it (a new one is made; open previews must be made again)`);
  return key;
}

/** The identity of an API key as tokens name it: a hash, so the key itself is never written. */
export function keyIdentity(apiKey: string): string {
  return createHash('sha256').update(`svc-sdk commit key id\0${apiKey}`).digest('hex').slice(0, 32);
}

/** The HMAC that says this key minted a token of this id and expiry. */
function stamp(key: Buffer, id: string, expires: number): string {
  return createHmac('sha256', key).update(`stamp\0${id}\0${expires}`).digest('hex').slice(0, 16);
}

/** The HMAC binding a token's id and expiry to `binding`. */
function mac(key: Buffer, id: string, expires: number, { tool, args, service, keyId, content }: TokenBinding): string {
  return createHmac('sha256', key)
    .update(JSON.stringify([id, expires, tool, canonical(args), service, keyId, content ?? null]))
    .digest('hex');
}

/** The digest of a content record, as a token binds it. */
export function contentDigest(record: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonical(record))).digest('hex');
}

function same(given: string, expected: string): boolean {
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(expected, 'hex'));
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** `value` with object keys sorted at every depth, so `{a, b}` and `{b, a}` bind the same token. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  // sort(): code-unit order, the same in every process. An undefined field stays: JSON.stringify leaves it out.
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, canonical(record[key])]));
}

/** One ledger per state folder in this process (an HTTP server makes a server per request). */
const LEDGERS = new Map<string, CommitLedger>();

/** The ledger of `stateDir`, shared by every server of this process on that folder. */
export function ledgerOf(stateDir: string): CommitLedger {
  let ledger = LEDGERS.get(stateDir);
  if (ledger === undefined) LEDGERS.set(stateDir, (ledger = new CommitLedger(stateDir)));
  return ledger;
}
