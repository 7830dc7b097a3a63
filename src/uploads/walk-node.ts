import { isUtf8 } from 'node:buffer';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ValidationError } from '../core/errors.js';
import { isManifestFile, type ListedFile, type UnlistableEntry } from './file-system.js';

const OPERATION = 'documents.uploadMany';

/**
 * Every regular file below `directory`, recursively, sorted by relative path (code-unit order, `/`
 * between segments, the same on every platform and run). Symbolic links are neither followed nor
 * sent (a link could lead out of the folder, or around in a loop); sockets and devices are skipped.
 * `exclude` (absolute paths: the run's own manifest; undefined without one) is left out, with its companions (isManifestFile).
 *
 * Names are read as bytes: one that is not UTF-8 (legal on Linux) cannot be named to the service
 * nor recorded in the manifest, so it comes as an UnlistableEntry (its `failed`), as does an entry
 * or a subdirectory that cannot be read; the other files go on.
 */
export async function listFiles(directory: string, exclude: readonly string[] | undefined): Promise<Array<ListedFile | UnlistableEntry>> {
  const root = resolve(directory);
  const unreadable = (code: string) =>
    new ValidationError(OPERATION, [{ path: ['inputs'], message: `cannot read the directory "${directory}" (${code}): pass the path of a readable directory` }]);
  const stats = await stat(root).catch((error: unknown) => {
    throw unreadable(codeOf(error));
  });
  if (!stats.isDirectory()) throw unreadable('ENOTDIR');
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
      if (exclude?.some((manifest) => isManifestFile(absolutePath, manifest))) continue;
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
  // sort() without a comparator orders strings by UTF-16 code units. Entries of one path (a name
  // that is not UTF-8, shown escaped, as another file's name) keep their listing order.
  const byPath = new Map<string, typeof entries>();
  for (const entry of entries) byPath.set(entry.path, [...(byPath.get(entry.path) ?? []), entry]);
  return [...byPath.keys()].sort().flatMap((path) => byPath.get(path)!);
}

/**
 * The name as a string, or undefined when it is not UTF-8. Not TextDecoder: it drops a leading
 * byte order mark, and a name that starts with U+FEFF would then be looked up without it (not found).
 */
function decodeName(raw: Buffer): string | undefined {
  return isUtf8(raw) ? raw.toString('utf8') : undefined;
}

/** A name that is not UTF-8, printable: ASCII bytes as they are, every other byte (0x80 and up: two hex digits) as `\xNN`. */
function escapeName(raw: Buffer): string {
  let shown = '';
  for (const byte of raw) shown += byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16)}`;
  return shown;
}

function codeOf(error: unknown): string {
  return (error as { code?: string }).code ?? String(error);
}
