import { lstat, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ValidationError } from '../core/errors.js';
import type { ListedFile } from './file-system.js';

/**
 * Every regular file below `directory`, recursively, sorted by relative path (code-unit order, `/`
 * between segments, the same on every platform and run). Symbolic links are neither followed nor
 * sent (a link could lead out of the folder, or around in a loop); sockets and devices are skipped.
 * `exclude` (an absolute path: the run's own manifest) is left out.
 */
export async function listFiles(directory: string, exclude: string | undefined): Promise<ListedFile[]> {
  const root = resolve(directory);
  try {
    if (!(await stat(root)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw new ValidationError('documents.uploadMany', [
      { path: ['inputs'], message: `cannot read the directory "${directory}" (${code}): pass the path of a readable directory` },
    ]);
  }
  const files: ListedFile[] = [];
  const visit = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const absolutePath = join(dir, entry.name);
      const path = prefix + entry.name;
      if (entry.isDirectory()) await visit(absolutePath, `${path}/`);
      else if (entry.isFile() && absolutePath !== exclude) {
        // lstat: the entry itself, never what a link points to (a file replaced by a link since readdir is skipped).
        const stats = await lstat(absolutePath);
        if (stats.isFile()) files.push({ path, absolutePath, size: stats.size, mtimeMs: stats.mtimeMs });
      }
    }
  };
  await visit(root, '');
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
