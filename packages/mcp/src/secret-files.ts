// One-time secrets (a new webhook's signing secret, a rotated one) go to a file only the user can
// read, never into a tool result: whatever reaches the model may reach its provider's logs, other
// tools and the transcript. The tool returns the file's path.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stateDirectory } from 'svc-sdk/internal';

/** Writes one-time secrets to files and redacts every secret it has seen (and the API key) from text. */
export interface SecretFiles {
  /** Writes `secret` to a new 0600 file named after `name` and returns its path. */
  write(name: string, secret: string): Promise<string>;
  /** `text` with every known secret replaced by `[redacted]`. */
  redact(text: string): string;
}

/** The server's default folder: the per-user state directory's `mcp` (src/shared/state-dir.ts). */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return stateDirectory('mcp', env);
}

/** Secret files in `dir` (created 0700 when missing); `known` seeds the values to redact (the API key). */
export function secretFiles(dir: string, known: readonly string[] = []): SecretFiles {
  const secrets = new Set(known.filter((value) => value.length >= 8));
  return {
    async write(name, secret) {
      secrets.add(secret);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.secret`);
      // `wx`: never overwrite (nor follow a link planted at) an existing path; 0600: the user alone reads it.
      await writeFile(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
      return path;
    },
    redact(text) {
      let clean = text;
      for (const secret of secrets) clean = clean.split(secret).join('[redacted]');
      // Shapes of keys and secrets the server never saw (an error quoting a header, a body).
      return clean.replace(/\b(vdr|whsec)_[A-Za-z0-9_-]+/g, '$1_[redacted]');
    },
  };
}
