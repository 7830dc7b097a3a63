// The per-user state folders of svc-sdk's tools (the folder upload's own manifests, the MCP server's
// secret files and manifests): where they are and how they are made, one rule, Node only (the CLI and
// the MCP server import it).
import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

/**
 * `%LOCALAPPDATA%\svc-sdk\<part>` on Windows, else `$XDG_STATE_HOME/svc-sdk/<part>`, by default
 * `~/.local/state/svc-sdk/<part>`. A relative `XDG_STATE_HOME` or `LOCALAPPDATA` is ignored, as the
 * XDG specification says (it would name a different folder from every working directory).
 */
export function stateDirectory(part: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = env['HOME'] || homedir();
  if (platform === 'win32') {
    const local = env['LOCALAPPDATA'];
    const base = local && win32.isAbsolute(local) ? local : win32.join(env['USERPROFILE'] || home, 'AppData', 'Local');
    return win32.join(base, 'svc-sdk', part);
  }
  const state = env['XDG_STATE_HOME'];
  const base = state && posix.isAbsolute(state) ? state : posix.join(home, '.local', 'state');
  return posix.join(base, 'svc-sdk', part);
}

/**
 * Makes `directory` (and its missing parents) readable by the user alone (0700), or checks the one
 * there: what goes in it (file names of the user's folders, one-time signing secrets) is the user's
 * alone. A folder others can open (any group or other bit: a pre-made 0777 one), one owned by another
 * user, a symbolic link (whoever planted it chose where the files go) or anything but a folder is
 * refused, never used nor changed, with a `[svc-sdk]` error naming the path and the way out: `fix`
 * (the caller's option, such as `pass --state-dir <dir>`). On Windows the folder inherits its
 * parent's access list, which modes do not describe: only a link or a non-folder is refused there.
 */
export function ensureStateDirectory(directory: string, fix: string): void {
  let stats = existing(directory, fix);
  if (!stats) {
    try {
      mkdirSync(directory, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new Error(`[svc-sdk] cannot create the state folder ${directory} (${(error as NodeJS.ErrnoException).code ?? String(error)}): ${fix}`, { cause: error });
    }
    // Checked again: a link planted between the check and the mkdir is refused as one found before.
    stats = existing(directory, fix)!;
  }
  const refuse = (what: string) => new Error(`[svc-sdk] the state folder ${directory} ${what}, or ${fix}`);
  if (stats.isSymbolicLink()) throw refuse('is a symbolic link: remove it (svc-sdk makes the folder itself, readable by you alone)');
  if (!stats.isDirectory()) throw refuse('is not a folder: remove it');
  if (process.platform === 'win32') return;
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw refuse(`belongs to another user (uid ${stats.uid}): use a folder of your own`);
  const mode = stats.mode & 0o777;
  if (mode & 0o077) throw refuse(`can be opened by other users (mode 0${mode.toString(8)}): run chmod 700 '${directory}'`);
}

/** The entry at `path` itself (a link not followed), or undefined when there is none. */
function existing(path: string, fix: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Missing, or below a file (ENOTDIR): mkdir then says why it cannot be made.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Error(`[svc-sdk] cannot read the state folder ${path} (${code ?? String(error)}): ${fix}`, { cause: error });
  }
}
