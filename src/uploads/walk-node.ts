import { lstat, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ValidationError } from '../core/errors.js';
import type { ListedFile, UnlistableEntry } from './file-system.js';

const OPERATION = 'documents.uploadMany';
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Every regular file below `directory`, recursively, sorted by relative path (code-unit order, `/`
 * between segments, the same on every platform and run). Symbolic links are neither followed nor
 * sent (a link could lead out of the folder, or around in a loop); sockets and devices are skipped.
 * `exclude` (absolute paths: the run's own manifest and its lock) is left out.
 *
 * Names are read as bytes: one that is not UTF-8 (legal on Linux) cannot be named to the service
 * nor recorded in the manifest, so it comes as an UnlistableEntry (its `failed`), as does an entry
 * or a subdirectory that cannot be read; the other files go on.
 */
export async function listFiles(directory: string, exclude: readonly string[]): Promise<Array<ListedFile | UnlistableEntry>> {
  const root = resolve(directory);
  try {
    if (!(await stat(root)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  } catch (error) {
    throw new ValidationError(OPERATION, [
      { path: ['inputs'], message: `cannot read the directory "${directory}" (${codeOf(error)}): pass the path of a readable directory` },
    ]);
  }
  const entries: Array<ListedFile | UnlistableEntry> = [];
  const unlistable = (path: string, message: string) => entries.push({ path, error: new ValidationError(OPERATION, [{ path: ['inputs', path], message }]) });
  const visit = async (dir: string, prefix: string): Promise<void> => {
    let names: Buffer[];
    try {
      names = await readdir(dir, { encoding: 'buffer' });
    } catch (error) {
      unlistable(prefix || '.', `the directory "${prefix || '.'}" cannot be read (${codeOf(error)}): its files were not sent; fix its permissions and run again`);
      return;
    }
    for (const raw of names) {
      const name = decodeName(raw);
      const path = prefix + (name ?? escapeName(raw));
      if (name === undefined) {
        unlistable(path, `the file name "${path}" is not UTF-8, so it cannot be sent as a document's name: rename the file and run again`);
        continue;
      }
      const absolutePath = join(dir, name);
      if (exclude.includes(absolutePath)) continue;
      let stats: Awaited<ReturnType<typeof lstat>>;
      try {
        // lstat: the entry itself, never what a link points to.
        stats = await lstat(absolutePath);
      } catch (error) {
        if (codeOf(error) === 'ENOENT') continue; // gone since readdir: nothing to send
        unlistable(path, `"${path}" cannot be read (${codeOf(error)}): fix its permissions and run again`);
        continue;
      }
      if (stats.isDirectory()) await visit(absolutePath, `${path}/`);
      else if (stats.isFile()) entries.push({ path, absolutePath, size: stats.size, mtimeMs: stats.mtimeMs, dev: stats.dev, ino: stats.ino });
    }
  };
  await visit(root, '');
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function decodeName(raw: Buffer): string | undefined {
  try {
    return strictUtf8.decode(raw);
  } catch {
    return undefined;
  }
}

/** A name that is not UTF-8, printable: valid runs as they are, every other byte as `\xNN`. */
function escapeName(raw: Buffer): string {
  let shown = '';
  for (const byte of raw) shown += byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  return shown;
}

function codeOf(error: unknown): string {
  return (error as { code?: string }).code ?? String(error);
}
