// One-time secrets (a new webhook's signing secret, a rotated one) go to a file only the user can
// read, never into a tool result: whatever reaches the model may reach its provider's logs, other
// tools and the transcript. The tool returns the file's path. The file is opened before the
// service is asked for the secret (a folder that cannot take it refuses the call before anything
// is created, so a one-time secret is never lost), in a folder that must be the user's own: not a
// link, not readable or writable by others; the file is created with O_EXCL | O_NOFOLLOW, 0600.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { stateDirectory } from 'svc-sdk/internal';
import { ToolRefusal } from './tool-refusal.js';

/** The way out of a state folder the rule refuses (svc-sdk/internal's ensureStateDirectory). */
export const STATE_FIX = 'pass the MCP server a state folder of your own (--state-dir <dir>, or stateDir)';

/** A secret file opened before its secret exists. */
export interface PendingSecret {
  /** Writes `secret` (then the file holds it alone) and names the file after `name`; returns its path. */
  write(name: string, secret: string): Promise<string>;
  /** Removes the empty file (the service refused: there is no secret). */
  discard(): Promise<void>;
}

/** Writes one-time secrets to files and redacts every secret it has seen (and the API key) from text. */
export interface SecretFiles {
  /** Checks the folder and opens a new 0600 file for a secret to come; a ToolRefusal when the folder is not safe. */
  open(): Promise<PendingSecret>;
  /** `text` with every known secret replaced by `[redacted]`. */
  redact(text: string): string;
}

/**
 * The server's default folder: the per-user state directory's `mcp` (src/shared/state-dir.ts).
 *
 * @param env The environment that names it (`XDG_STATE_HOME`, `LOCALAPPDATA`, `HOME`); the process's by default.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return stateDirectory('mcp', env);
}

/** O_EXCL: never an existing path; O_NOFOLLOW: never through a link planted at it. */
const NEW_FILE = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;

/** Secret files in `dir` (created 0700 when missing); `known` seeds the values to redact (the API key). */
export function secretFiles(dir: string, known: readonly string[]): SecretFiles {
  const secrets = new Set(known.filter((value) => value.length >= 8));
  return {
    async open() {
      await checkFolder(dir);
      const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`;
      const pending = join(dir, `pending-${stamp}.secret`);
      let handle: FileHandle;
      try {
        handle = await open(pending, NEW_FILE, 0o600);
      } catch (error) {
        throw new ToolRefusal(`the secrets folder ${dir} cannot take a new file (${(error as { code?: string }).code ?? 'error'}): nothing was created; fix the folder and call again`);
      }
      return {
        async write(name, secret) {
          secrets.add(secret);
          try {
            await handle.writeFile(`${secret}\n`);
          } finally {
            await handle.close();
          }
          const named = join(dir, `${name}-${stamp}.secret`);
          // A link, not a rename: it never replaces a file of that name. The pending name stays if it fails.
          try {
            await link(pending, named);
          } catch {
            return pending;
          }
          await unlink(pending);
          return named;
        },
        async discard() {
          await handle.close().catch(() => {});
          await unlink(pending).catch(() => {});
        },
      };
    },
    redact(text) {
      let clean = text;
      for (const secret of secrets) clean = clean.split(secret).join('[redacted]');
      // Shapes of keys and secrets the server never saw (an error quoting a header, a body).
      return clean.replace(/\b(vdr|whsec)_[A-Za-z0-9_-]+/g, '$1_[redacted]');
    },
  };
}

/** Makes `dir` (0700) when missing; refuses it when it is a link or others may read or write it. */
async function checkFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch(() => {});
  const stats = await lstat(dir).catch(() => undefined);
  if (stats === undefined || !stats.isDirectory()) {
    throw new ToolRefusal(`the secrets folder ${dir} ${stats?.isSymbolicLink() ? 'is a symbolic link' : 'is missing or not a folder'}: nothing was created; make it a real folder (mkdir -m 700) or start the server with another --state-dir`);
  }
  if ((stats.mode & 0o077) !== 0) {
    throw new ToolRefusal(`the secrets folder ${dir} is open to other users (mode ${(stats.mode & 0o777).toString(8)}): nothing was created; chmod 700 it, or start the server with another --state-dir`);
  }
}
