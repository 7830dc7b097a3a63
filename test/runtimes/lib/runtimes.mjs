// Finds every runtime of the matrix. The matrix's tools live in test/runtimes/package.json (and its
// own lock), installed on demand by installMatrixTools(), so the root install stays light: Node
// builds as `node-<spec>` aliases of the npm `node` package, Bun, Deno, workerd (miniflare),
// playwright-core, publint and attw. Chromium comes from Debian (installed by .ci/run).
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quietNpm, run, tail } from './process.mjs';

/** The matrix's own npm project: its package.json lists the tools, its node_modules holds them. */
const MATRIX_DIR = fileURLToPath(new URL('../', import.meta.url));

/** Where Debian's chromium package puts the browser; CHROMIUM_PATH overrides it (another build, or a test of the skip). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** The line a check prints when a system package is missing outside CI (under CI=true it fails instead). */
export const INSTALL_CHROMIUM = "install Debian's chromium as root (apt-get install -y chromium; .ci/run does)";

/** True under CI, where a check that needs a system package is required rather than skipped. */
export const REQUIRE_SYSTEM_PACKAGES = process.env.CI === 'true';

/**
 * Installs test/runtimes/package.json's tools into test/runtimes/node_modules (about 1 s when they
 * are already there); resolves with npm's summary line, or throws npm's output.
 */
export async function installMatrixTools() {
  const args = ['install', '--prefix', MATRIX_DIR, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
  const install = await run('npm', args, { cwd: MATRIX_DIR, timeoutMs: 600_000 });
  if (install.code !== 0) throw new Error(`npm install --prefix test/runtimes failed:\n${tail(quietNpm(install.stderr + install.stdout))}`);
  return tail(quietNpm(install.stdout), 1).trim();
}

/**
 * The binary of Node `spec` (a major like `22`, or an exact version like `22.0.0`): this process's
 * own when it matches a major (npm scripts run the project's node@24), else the `node-<spec>` alias
 * of test/runtimes/package.json.
 */
export async function nodeBinary(spec) {
  if (!spec.includes('.') && process.versions.node.split('.')[0] === spec) return process.execPath;
  const alias = `node-${spec}`;
  const manifest = JSON.parse(await readFile(path.join(MATRIX_DIR, 'package.json'), 'utf8'));
  if (!manifest.devDependencies?.[alias]) {
    throw new Error(`test/runtimes/package.json has no "${alias}": add "${alias}": "npm:node@${spec.includes('.') ? spec : `^${spec}`}" to its devDependencies`);
  }
  const binary = path.join(MATRIX_DIR, 'node_modules', alias, 'bin', 'node');
  await access(binary).catch(() => {
    throw new Error(`${binary} is missing: npm install --prefix test/runtimes did not install ${alias}`);
  });
  return binary;
}

/** A matrix tool's binary in test/runtimes/node_modules/.bin. */
export function matrixBin(name) {
  return path.join(MATRIX_DIR, 'node_modules', '.bin', name);
}

/** The version of a package installed for the matrix (test/runtimes) or, with `root`, for the project. */
export async function packageVersion(name, root = MATRIX_DIR) {
  return JSON.parse(await readFile(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** The first line a binary prints for `args` (its version), or the reason it printed none. */
export async function versionOf(binary, args = ['--version']) {
  const result = await run(binary, args, { timeoutMs: 30_000 });
  if (result.code !== 0) throw new Error(`${binary} ${args.join(' ')} failed: ${tail(result.stderr + result.stdout, 5)}`);
  return result.stdout.trim().split('\n')[0].trim();
}
