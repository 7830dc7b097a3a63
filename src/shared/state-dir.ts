// The per-user state directory of svc-sdk's tools (the folder upload's own manifests, the MCP server's
// secret files and manifests): one rule, Node only (the CLI and svc-sdk/mcp import it).
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
