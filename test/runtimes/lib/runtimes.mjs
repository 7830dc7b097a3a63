// Finds (and installs when missing) every runtime of the matrix through the project's own files:
// Node majors from the npm `node` package into .tmp/runtimes/ (a cache kept between runs), Bun,
// Deno and workerd from devDependencies, Chromium from Debian (installed by .ci/run).
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { quietNpm, run, tail } from './process.mjs';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The binary of Node `spec` (a major like `22`, or an exact version like `22.12.0`): this process's
 * own when it matches a major (npm scripts run the project's node@24), else the npm package
 * `node@<spec>` installed into `.tmp/runtimes/node<spec>`, once.
 */
export async function nodeBinary(root, spec) {
  if (!spec.includes('.') && process.versions.node.split('.')[0] === spec) return process.execPath;
  const prefix = path.join(root, '.tmp', 'runtimes', `node${spec}`);
  const binary = path.join(prefix, 'node_modules', 'node', 'bin', 'node');
  if (await installed(prefix, spec)) return binary;
  const install = await run(
    'npm',
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', `node@${spec}`],
    { cwd: root, timeoutMs: 300_000 },
  );
  if (install.code !== 0 || !(await installed(prefix, spec))) {
    throw new Error(`npm install node@${spec} failed:\n${tail(quietNpm(install.stderr + install.stdout))}`);
  }
  return binary;
}

async function installed(prefix, spec) {
  try {
    const manifest = JSON.parse(await readFile(path.join(prefix, 'node_modules', 'node', 'package.json'), 'utf8'));
    await access(path.join(prefix, 'node_modules', 'node', 'bin', 'node'));
    return manifest.version === spec || manifest.version.split('.')[0] === spec;
  } catch {
    return false;
  }
}

/** A devDependency's binary in the project's node_modules/.bin. */
export function projectBin(root, name) {
  return path.join(root, 'node_modules', '.bin', name);
}

/** The first line a binary prints for `args` (its version), or the reason it printed none. */
export async function versionOf(binary, args = ['--version']) {
  const result = await run(binary, args, { timeoutMs: 30_000 });
  if (result.code !== 0) throw new Error(`${binary} ${args.join(' ')} failed: ${tail(result.stderr + result.stdout, 5)}`);
  return result.stdout.trim().split('\n')[0].trim();
}
