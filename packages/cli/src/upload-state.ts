// Where `svc-sdk upload` keeps its own manifest when none is given: one file per service origin, room and
// folder in the user's state directory, so "run the same command again" resumes instead of resending.
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { posix, resolve, win32 } from 'node:path';
import { stateDirectory } from 'svc-sdk/internal';

/** What a state-directory manifest belongs to: one service, one room, one folder. */
export interface UploadStateKey {
  /** The service's origin, such as `https://api.example.com`. */
  origin: string;
  roomId: number;
  /** The folder's absolute path, symbolic links resolved (the same folder by any path is one key). */
  folder: string;
}

/** The directory of upload manifests: the per-user state directory's `uploads` (src/shared/state-dir.ts). */
export function uploadStateDirectory(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  return stateDirectory('uploads', env, platform);
}

/** The manifest's path for `key`: `room-<id>-<hash>.jsonl`, the hash of origin, room and folder (the room in the name for people). */
export function uploadStatePath(env: NodeJS.ProcessEnv, key: UploadStateKey, platform: NodeJS.Platform = process.platform): string {
  const digest = createHash('sha256').update(JSON.stringify([key.origin, key.roomId, key.folder])).digest('hex').slice(0, 32);
  const join = platform === 'win32' ? win32.join : posix.join;
  return join(uploadStateDirectory(env, platform), `room-${key.roomId}-${digest}.jsonl`);
}

/** The folder's key path: absolute with links resolved, or `undefined` when it cannot be read (uploadMany then says why). */
export function folderKey(dir: string): string | undefined {
  try {
    return realpathSync(resolve(dir));
  } catch {
    return undefined;
  }
}

/**
 * Creates the manifest's directory, readable by its owner only (file names of the user's folders are
 * in it). Throws a `[svc-sdk]` error naming the directory and the way around it.
 */
export function createUploadStateDirectory(manifestPath: string, platform: NodeJS.Platform = process.platform): void {
  const directory = (platform === 'win32' ? win32 : posix).dirname(manifestPath);
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`[svc-sdk] cannot create the upload state directory ${directory} (${code}): set XDG_STATE_HOME to a writable directory or pass --manifest <file>`, { cause: error });
  }
}
