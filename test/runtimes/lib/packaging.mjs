// Packaging checks of the packed package: what `npm publish` would upload, publint and
// "are the types wrong" on the very tarball the runtimes install.
import { quietNpm, run, tail } from './process.mjs';
import { matrixBin } from './runtimes.mjs';

/** What a user needs, and nothing else: the build, the docs and the license (npm adds package.json). */
const REQUIRED_FILES = ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE'];
const isAllowed = (file) => REQUIRED_FILES.includes(file) || file.startsWith('dist/');

/** Checks the file list of `npm publish --dry-run`; resolves with a one-line summary. */
export async function checkPublishFiles(root) {
  // --ignore-scripts: prepublishOnly runs the whole test suite, this very stage included.
  const result = await run('npm', ['publish', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`npm publish --dry-run failed:\n${tail(quietNpm(result.stderr + result.stdout))}`);
  const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{')));
  // npm 11 keys the report by package name; earlier versions print the package's report itself.
  const files = (report.files ?? Object.values(report)[0].files).map((file) => file.path);
  const unexpected = files.filter((file) => !isAllowed(file));
  const missing = REQUIRED_FILES.filter((file) => !files.includes(file));
  const built = files.filter((file) => file.startsWith('dist/'));
  if (unexpected.length || missing.length || built.length === 0) {
    throw new Error(
      `npm publish --dry-run lists unexpected files [${unexpected.join(', ')}], ` +
        `misses [${missing.join(', ')}], and ${built.length} files of dist/`,
    );
  }
  return `${files.length} files: ${REQUIRED_FILES.join(', ')} and ${built.length} in dist/`;
}

/** `publint --strict` on the tarball: warnings count as errors; resolves when it finds nothing. */
export async function checkPublint(root, tarball) {
  const result = await run(matrixBin('publint'), ['run', '--strict', tarball], { cwd: root, timeoutMs: 120_000 });
  const output = `${result.stdout}\n${result.stderr}`.trim();
  if (result.code !== 0 || !output.includes('All good!')) throw new Error(`publint --strict reported:\n${tail(output, 40)}`);
  return 'All good!';
}

/**
 * attw on the tarball (what `attw --pack` checks, without packing a second time). Profile
 * node16: the `node10` column resolves subpaths only through `typesVersions`, but node10 resolution
 * is deprecated since TypeScript 6 and predates `exports`, which Node >= 22 (our engines) requires.
 */
export async function checkTypes(root, tarball) {
  const args = [tarball, '--profile', 'node16', '--format', 'ascii', '--no-emoji', '--no-color'];
  const result = await run(matrixBin('attw'), args, { cwd: root, timeoutMs: 180_000 });
  const output = `${result.stdout}\n${result.stderr}`.trim();
  if (result.code !== 0) throw new Error(`attw --profile node16 reported problems:\n${tail(output, 60)}`);
  // attw exits 0 for a package without any types at all: that is a failure here.
  if (output.includes('does not contain types')) throw new Error(`attw: the package ships no types:\n${tail(output, 20)}`);
  return 'no problems (profile node16)';
}
