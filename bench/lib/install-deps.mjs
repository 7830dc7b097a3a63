// `npm run bench:deps` (run first by `npm run bench` and `npm run bench:upload`): installs the
// benchmarks' peers from bench/package.json and its own lock into bench/node_modules, so the root
// `npm install` stays light. The first run installs them; later runs find them in place (about 1 s).
//
// bench/package.json makes bench/ a package scope of its own, where `svc-sdk` no longer resolves to
// the project by self-reference. A link bench/node_modules/svc-sdk -> the project root makes the
// benchmarks import it by name as a user's code does (the built dist/, through its exports map).
// npm would remove that link as extraneous, so it is taken out before the install and made after.
import { spawnSync } from 'node:child_process';
import { lstatSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const SELF_LINK = join(BENCH_DIR, 'node_modules', 'svc-sdk');

/** True when `path` exists as a symbolic link (not following it). */
function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

if (isLink(SELF_LINK)) unlinkSync(SELF_LINK);
const args = ['install', '--prefix', BENCH_DIR, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
const install = spawnSync('npm', args, { cwd: BENCH_DIR, encoding: 'utf8', shell: process.platform === 'win32' });
if (install.status !== 0) {
  console.error(`bench: npm install --prefix bench failed:\n${install.stderr}${install.stdout}`);
  process.exit(1);
}
// A junction on Windows (no admin rights needed); other platforms ignore the type.
symlinkSync('../..', SELF_LINK, 'junction');
console.error(`bench: bench/package.json: ${install.stdout.trim().split('\n').at(-1)}`);
