// `npm run test:mutation`: installs Stryker into test/mutation/ on demand (never the root install),
// runs it with stryker.config.mjs, then writes MUTATION.md from its JSON report.
// Extra arguments go to `stryker run` (`npm run test:mutation -- --mutate 'src/resources/**/*.ts'`);
// such a partial run prints its summary but leaves MUTATION.md, which records full runs only.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMutationReport } from './report.mjs';

const here = fileURLToPath(new URL('./', import.meta.url));
const root = path.resolve(here, '../..');

function step(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`[mutation] ${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
    process.exit(result.status ?? 1);
  }
}

// --legacy-peer-deps: the vitest runner's peer is the project's own vitest, found in the root
// node_modules; without it npm would install a second vitest here.
step('npm', ['install', '--prefix', here, '--no-audit', '--no-fund', '--legacy-peer-deps', '--loglevel=error'], here);
const extra = process.argv.slice(2);
step(path.join(here, 'node_modules', '.bin', 'stryker'), ['run', ...extra], root);
const { unclassified, stale } = await writeMutationReport({ root, output: extra.length ? undefined : path.join(root, 'MUTATION.md') });
// A survivor nobody has explained is a test gap: the run fails until a test kills it or
// test/mutation/survivors.json says why no test can.
if (unclassified > 0) {
  console.error(`[mutation] ${unclassified} surviving mutant(s) are neither killed nor classified in test/mutation/survivors.json`);
  process.exitCode = 1;
}
// A full run also fails on a stale classification, which could one day explain away a new mutant of the same text.
if (!extra.length && stale > 0) {
  console.error(`[mutation] ${stale} test/mutation/survivors.json entr${stale === 1 ? 'y matches' : 'ies match'} no survivor: remove them`);
  process.exitCode = 1;
}
