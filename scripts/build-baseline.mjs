// Builds another commit of this repository as the package `svc-sdk-baseline` in bench/node_modules,
// so `npm run bench -- --baseline <ref>` measures that build beside this one in the same run (A/B):
// the same rounds, the same machine load, ratios taken round by round.
//   node scripts/build-baseline.mjs <ref>     (a commit, branch or tag; kept until another ref is asked for)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const ref = process.argv[2];
if (!ref) {
  console.error('usage: node scripts/build-baseline.mjs <git ref>');
  process.exit(2);
}
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
const target = join(root, 'bench', 'node_modules', 'svc-sdk-baseline');
const stamp = join(target, '.baseline-sha');
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === sha) {
  console.error(`bench: baseline ${ref} (${sha.slice(0, 7)}) already built`);
  process.exit(0);
}
console.error(`bench: building the baseline ${ref} (${sha.slice(0, 7)})…`);
const checkout = mkdtempSync(join(tmpdir(), 'svc-sdk-baseline-'));
try {
  // A detached worktree of that commit, building with this checkout's installed tools.
  git('worktree', 'add', '--detach', '--force', checkout, sha);
  symlinkSync(join(root, 'node_modules'), join(checkout, 'node_modules'), 'dir');
  execFileSync(join(root, 'node_modules', '.bin', 'tsup'), ['--silent'], { cwd: checkout, stdio: 'inherit' });
  rmSync(target, { recursive: true, force: true });
  cpSync(join(checkout, 'dist'), join(target, 'dist'), { recursive: true });
  // The same exports under another name: `svc-sdk-baseline/webhooks` is that build's `svc-sdk/webhooks`.
  const manifest = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8'));
  const { exports, type, sideEffects, main, module, types } = manifest;
  writeFileSync(
    join(target, 'package.json'),
    `${JSON.stringify({ name: 'svc-sdk-baseline', version: `${manifest.version}-${sha.slice(0, 7)}`, private: true, type, sideEffects, main, module, types, exports }, null, 2)}\n`,
  );
  writeFileSync(stamp, sha);
} finally {
  git('worktree', 'remove', '--force', checkout);
}
