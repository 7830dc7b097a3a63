// `npm run test:deps` and `npm run bench:deps`: installs an on-demand folder's tools (test/ or bench/)
// from its own package.json and lock into its own node_modules, so the root `npm install` stays light
// (issue 17). Usage: `node scripts/install-deps.mjs <folder> [npm install flags]`. The first run
// installs them; later runs find them in place (about 1 s) and leave the committed lock as it is.
//
// The folder's package.json makes it a package scope of its own, where `svc-sdk` no longer resolves
// to the project by self-reference. A link <folder>/node_modules/svc-sdk -> the project root makes its
// code import it by name as a user's code does (the built dist/, through its exports map). npm would
// remove that link as extraneous, so it is taken out before the install and made after.
import { spawnSync } from 'node:child_process';
import { lstatSync, symlinkSync, unlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const [folder, ...flags] = process.argv.slice(2);
if (!folder) {
  console.error('[svc-sdk] usage: node scripts/install-deps.mjs <folder> [npm install flags], e.g. test or bench');
  process.exit(2);
}
const DIR = join(ROOT, folder);
const SELF_LINK = join(DIR, 'node_modules', 'svc-sdk');

/** True when `path` exists as a symbolic link (not following it). */
function isLink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

if (isLink(SELF_LINK)) unlinkSync(SELF_LINK);
const args = ['install', '--prefix', DIR, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...flags];
const install = spawnSync('npm', args, { cwd: DIR, encoding: 'utf8', shell: process.platform === 'win32' });
if (install.status !== 0) {
  console.error(`${folder}: npm install --prefix ${folder} failed:\n${install.stderr}${install.stdout}`);
  process.exit(1);
}
// A junction on Windows (no admin rights needed); other platforms ignore the type.
symlinkSync(relative(join(DIR, 'node_modules'), ROOT) || '.', SELF_LINK, 'junction');
console.error(`${folder}: ${folder}/package.json: ${install.stdout.trim().split('\n').at(-1)}`);
