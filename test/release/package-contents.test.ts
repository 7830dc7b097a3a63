// `npm publish --dry-run` succeeds and would publish exactly the build and the docs, every file package.json
// points at among them; installing the package runs no script, its own or a runtime dependency's
// (test/release/package-contents.ts). Needs the build (npm test builds before vitest runs).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { expectedFiles, installHooksOf, neverPublished, pointedAt, runtimeDependencies, type Manifest } from './package-contents.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = (await import('../../package.json', { with: { type: 'json' } })).default as Manifest & { version: string; files: string[] };

/** `npm publish --dry-run --json` in the project: what npm would publish. */
function publishDryRun(): { status: number | null; stderr: string; packed: { id: string; files: { path: string }[] } | undefined } {
  // --ignore-scripts: prepublishOnly is npm test itself. --offline: nothing here needs the registry, and an
  // unreachable one would stall the dry run for a minute.
  const run = spawnSync('npm', ['publish', '--dry-run', '--json', '--ignore-scripts', '--offline'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  const parsed = run.status === 0 ? (JSON.parse(run.stdout) as Record<string, { id: string; files: { path: string }[] }>) : {};
  return { status: run.status, stderr: run.stderr, packed: parsed[manifest.name!] };
}

describe('npm publish --dry-run', () => {
  const built = existsSync(join(root, 'dist', 'index.js'));
  const dryRun = built ? publishDryRun() : undefined;

  it('has the build to publish (npm run build)', () => {
    expect(built, 'dist/ is missing: run `npm run build` first (npm test does)').toBe(true);
  });

  it.runIf(built)('succeeds, with nothing in package.json for npm to correct', () => {
    expect(dryRun!.status, dryRun!.stderr).toBe(0);
    expect(dryRun!.stderr).not.toMatch(/auto-corrected|npm pkg fix/);
    expect(dryRun!.packed?.id).toBe(`svc-sdk@${manifest.version}`);
  });

  it.runIf(built)("lists exactly package.json's files as built: dist/, README, CHANGELOG, LICENSE and package.json", () => {
    const paths = dryRun!.packed!.files.map((file) => file.path).sort();
    expect(paths).toEqual(expectedFiles(root, manifest.files));
    expect(neverPublished(paths)).toEqual([]);
    expect(paths.filter((path) => !path.startsWith('dist/'))).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
  });

  it.runIf(built)('holds every file package.json points at (main, module, types, bin, exports)', () => {
    const paths = new Set(dryRun!.packed!.files.map((file) => file.path));
    const targets = pointedAt(manifest as Parameters<typeof pointedAt>[0]);
    expect(targets).toContain('dist/internal.js');
    // The bin `svc-sdk` is @svc-sdk/cli's (packages/cli): the library installs no command.
    expect(manifest).not.toHaveProperty('bin');
    expect(targets.filter((target) => !paths.has(target))).toEqual([]);
  });
});

describe('installing svc-sdk runs no script', () => {
  it('of its own (no preinstall, install or postinstall, no binding.gyp)', () => {
    expect(installHooksOf('svc-sdk', manifest, existsSync(join(root, 'binding.gyp')))).toEqual([]);
  });

  it('of a runtime dependency, at any depth', () => {
    const dependencies = runtimeDependencies(root);
    expect(dependencies.map((dependency) => dependency.chain)).toContain('svc-sdk > zod');
    const problems = dependencies.flatMap(({ chain, dir, manifest: dependency }) => installHooksOf(chain, dependency, existsSync(join(dir, 'binding.gyp'))));
    expect(problems).toEqual([]);
  });
});

describe('the package checks refuse', () => {
  const fixtures = mkdtempSync(join(tmpdir(), 'svc-sdk-release-'));
  afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

  /** Writes a package.json (and a binding.gyp when asked) into `dir` under the fixture root. */
  function writePackage(dir: string, contents: Manifest, bindingGyp = false): void {
    mkdirSync(join(fixtures, dir), { recursive: true });
    writeFileSync(join(fixtures, dir, 'package.json'), JSON.stringify(contents));
    if (bindingGyp) writeFileSync(join(fixtures, dir, 'binding.gyp'), '{}');
  }

  it.each(['preinstall', 'install', 'postinstall'])('a %s script', (hook) => {
    expect(installHooksOf('svc-sdk > evil', { scripts: { [hook]: 'node steal.js' } }, false)).toEqual([
      `[svc-sdk] svc-sdk > evil has a ${hook} script (node steal.js): installing svc-sdk would run it; remove it or the dependency`,
    ]);
  });

  it('a binding.gyp (npm runs node-gyp rebuild for it), but not other scripts', () => {
    expect(installHooksOf('svc-sdk > native', { scripts: { test: 'x', prepare: 'y' } }, true)).toEqual([
      '[svc-sdk] svc-sdk > native has a binding.gyp, for which npm runs node-gyp rebuild at install: remove it or the dependency',
    ]);
    expect(installHooksOf('svc-sdk > plain', { scripts: { test: 'x', prepare: 'y', prepublishOnly: 'z' } }, false)).toEqual([]);
  });

  it('a hook two levels down, found through the nested node_modules Node would load it from', () => {
    writePackage('app', { name: 'app', dependencies: { a: '^1.0.0' } });
    writePackage('app/node_modules/a', { name: 'a', dependencies: { b: '^2.0.0' }, optionalDependencies: { 'a-other-platform': '1.0.0' } });
    writePackage('app/node_modules/b', { name: 'b', scripts: { postinstall: 'node hoisted.js' } });
    writePackage('app/node_modules/a/node_modules/b', { name: 'b', scripts: { postinstall: 'node nested.js' } });
    const found = runtimeDependencies(join(fixtures, 'app'));
    expect(found.map((dependency) => dependency.chain)).toEqual(['app > a', 'app > a > b']);
    const problems = found.flatMap(({ chain, dir, manifest: dependency }) => installHooksOf(chain, dependency, existsSync(join(dir, 'binding.gyp'))));
    expect(problems).toEqual([expect.stringContaining('app > a > b has a postinstall script (node nested.js)')]);
  });

  it('a runtime dependency that is not installed', () => {
    writePackage('broken', { name: 'broken', dependencies: { missing: '1.0.0' } });
    expect(() => runtimeDependencies(join(fixtures, 'broken'))).toThrow('[svc-sdk] broken > missing is not installed: run npm install');
  });

  it('sources, tests, CI files, secrets and tarballs in the file list', () => {
    const paths = ['dist/index.js', 'src/index.ts', 'test/exports.test.ts', 'bench/run.mjs', '.github/workflows/ci.yml', '.env', 'dist/.env.local', 'svc-sdk-0.1.0.tgz', '.npmrc', 'README.md', 'dist/environment.js'];
    expect(neverPublished(paths).map((message) => /holds (\S+):/.exec(message)?.[1])).toEqual(['src/index.ts', 'test/exports.test.ts', 'bench/run.mjs', '.github/workflows/ci.yml', '.env', 'dist/.env.local', 'svc-sdk-0.1.0.tgz', '.npmrc']);
  });

  it("a files entry that does not exist (the build not run)", () => {
    expect(() => expectedFiles(root, ['dist-missing'])).toThrow("[svc-sdk] package.json's files lists dist-missing, which does not exist: run npm run build first");
  });
});
