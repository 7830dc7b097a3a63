import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { ValidationError } from '../core/errors.js';
import { MANIFEST_COMPANIONS } from './file-system.js';

/** A held lock; `release` removes it (call it once: later, the lock may be another run's). */
export interface ManifestLock {
  release(): Promise<void>;
}

interface Holder {
  pid: number;
  host: string;
}

/**
 * Takes `<manifest>.lock`, created exclusively (O_EXCL) and holding this process's pid and host, so
 * two runs on one manifest never both send a file (each would read it as not stored). A lock left
 * by a process that is gone from this host (killed) is taken over, as is one left empty (a kill
 * between its creation and its write) for more than a second; a lock of a live process, or of
 * another host (its processes cannot be checked from here), is refused with a ValidationError whose
 * message starts `[svc-sdk] manifest <path> is in use by process <pid>`.
 */
export async function lockManifest(manifestPath: string): Promise<ManifestLock> {
  const lockPath = `${manifestPath}${MANIFEST_COMPANIONS.lock}`;
  const me: Holder = { pid: process.pid, host: hostname() };
  // Twice at most: a stale lock is removed once, then taken like a free one.
  for (let attempt = 0; ; attempt += 1) {
    try {
      const handle = await open(lockPath, 'wx', 0o644);
      try {
        await handle.writeFile(`${JSON.stringify(me)}\n`);
      } finally {
        await handle.close();
      }
      // Called once: by the manifest's close, or when opening the manifest failed after the lock.
      return { release: () => unlink(lockPath).catch(() => undefined) };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') {
        throw refusal(`cannot create the lock "${lockPath}" beside the manifest (${(error as { code?: string }).code ?? String(error)}): pass a manifest in a directory you can write`);
      }
    }
    const holder = await readHolder(lockPath);
    if (attempt === 0 && (holder ? holder.host === me.host && !isAlive(holder.pid) : await isAbandonedEmpty(lockPath))) {
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    throw inUse(manifestPath, lockPath, holder);
  }
}

function refusal(message: string): ValidationError {
  return new ValidationError('documents.uploadMany', [{ path: ['manifest'], message }]);
}

function inUse(manifestPath: string, lockPath: string, holder: Holder | undefined): ValidationError {
  const who = holder ? `${holder.pid} on ${holder.host}` : 'unknown (its lock file cannot be read)';
  const error = refusal(`in use by process ${who}: wait for that run to end, or remove ${lockPath} if no run is going`);
  // The message the CLI and callers match on, whole.
  error.message = `[svc-sdk] manifest ${manifestPath} is in use by process ${who}: wait for that run to end, or remove ${lockPath} if no run is going`;
  return error;
}

/**
 * How long a lock may stay empty: its maker writes its pid right after creating it (microseconds),
 * so one empty for longer was left by a process killed between the two.
 */
const EMPTY_LOCK_MS = 1000;

/** Whether the lock is empty and stays so past EMPTY_LOCK_MS (waiting out the rest of it): a kill's leftover. */
async function isAbandonedEmpty(lockPath: string): Promise<boolean> {
  const stats = await stat(lockPath).catch(() => undefined);
  if (!stats || stats.size !== 0) return false;
  // Past already (an old lock): no wait (Node warns of a negative delay, TimeoutNegativeWarning).
  const wait = Math.max(0, EMPTY_LOCK_MS - (Date.now() - stats.mtimeMs));
  await new Promise((resolve) => setTimeout(resolve, wait));
  const again = await stat(lockPath).catch(() => undefined);
  return again !== undefined && again.size === 0;
}

async function readHolder(lockPath: string): Promise<Holder | undefined> {
  let value: Partial<Holder> | null | undefined;
  try {
    value = JSON.parse(await readFile(lockPath, 'utf8')) as Partial<Holder> | null;
  } catch {
    // Unreadable, or not JSON: no holder (value stays undefined).
  }
  // A safe integer pid says `value` is an object: its host is read only then.
  return Number.isSafeInteger(value?.pid) && typeof value!.host === 'string' ? { pid: value!.pid!, host: value!.host } : undefined;
}

/**
 * Whether a process of this host may be running (signal 0 checks without sending): every answer but
 * ESRCH (no such process) says it may: EPERM (it runs, as another user), or a pid that cannot even be
 * asked (past 2^31): refused rather than taken over when unsure.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code !== 'ESRCH';
  }
}
