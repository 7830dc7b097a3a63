// The credential of `svc-sdk mcp --http`: made once per state folder (32 random bytes, a 0600 file
// created with O_EXCL | O_NOFOLLOW), printed once when made, read again on later starts. A file
// that others can read, or a link, is refused: whoever reads it can drive the server.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The credential file's name in the state folder. */
export const CREDENTIAL_FILE = 'http-credential';

/**
 * The credential kept in `stateDir`, made now when there is none (`made`: print it, this once).
 *
 * @param stateDir The server's state folder.
 */
export async function storedCredential(stateDir: string): Promise<{ credential: string; made: boolean; path: string }> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const path = join(stateDir, CREDENTIAL_FILE);
  const credential = randomBytes(32).toString('base64url');
  try {
    const handle = await open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
    await handle.writeFile(`${credential}\n`);
    await handle.close();
    return { credential, made: true, path };
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
  const stats = await lstat(path);
  if (!stats.isFile() || (stats.mode & 0o077) !== 0) {
    throw new Error(`[svc-sdk] ${path} is a link or readable by others: remove it (a new credential is made and printed) and check who can write ${stateDir}`);
  }
  const stored = (await readFile(path, 'utf8')).trim();
  if (stored.length < 16) throw new Error(`[svc-sdk] ${path} holds no credential: remove it (a new one is made and printed)`);
  return { credential: stored, made: false, path };
}
