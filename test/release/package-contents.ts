// What `npm publish` would put in the tarball, and what installing it would run (issue 35). The files are
// package.json's `files` as built (dist/) and npm's own (package.json, README, CHANGELOG, LICENSE): no
// source, test, bench or CI file. Installing svc-sdk runs no script of ours or of a runtime dependency:
// no preinstall, install or postinstall, and no binding.gyp (npm runs `node-gyp rebuild` for one).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** The scripts npm runs when a package is installed from the registry. */
export const INSTALL_HOOKS = ['preinstall', 'install', 'postinstall'] as const;

/** The parts of a package.json read here. */
export interface Manifest {
  name?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Every file under `dir`, as paths relative to `root` with forward slashes, sorted. */
export function filesUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/**
 * What the tarball must hold: every file of each folder `files` names (as it is on disk after the build), each
 * file it names, and package.json, which npm always adds. README, CHANGELOG and LICENSE are in `files` by name.
 */
export function expectedFiles(root: string, files: string[]): string[] {
  const expected = new Set(['package.json']);
  for (const entry of files) {
    const path = join(root, entry);
    if (!existsSync(path)) throw new Error(`[svc-sdk] package.json's files lists ${entry}, which does not exist: run npm run build first (npm test does)`);
    for (const file of statSync(path).isDirectory() ? filesUnder(root, entry) : [entry]) expected.add(file);
  }
  return [...expected].sort();
}

/** What makes installing one package run code: its install hooks and a binding.gyp. `where` names it in the message. */
export function installHooksOf(where: string, manifest: Manifest, hasBindingGyp: boolean): string[] {
  const problems = INSTALL_HOOKS.filter((hook) => manifest.scripts?.[hook] !== undefined).map(
    (hook) => `[svc-sdk] ${where} has a ${hook} script (${manifest.scripts![hook]}): installing svc-sdk would run it; remove it or the dependency`,
  );
  if (hasBindingGyp && manifest.scripts?.install === undefined) {
    problems.push(`[svc-sdk] ${where} has a binding.gyp, for which npm runs node-gyp rebuild at install: remove it or the dependency`);
  }
  return problems;
}

/** The folder Node would load `name` from when required from `fromDir`: its node_modules, then each parent's. */
function resolvePackageDir(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Every runtime dependency installing the package at `root` brings (dependencies and optionalDependencies, to
 * any depth, as installed under node_modules), with the chain that brings it: `svc-sdk > zod`.
 */
export function runtimeDependencies(root: string): { chain: string; dir: string; manifest: Manifest }[] {
  const found: { chain: string; dir: string; manifest: Manifest }[] = [];
  const seen = new Set<string>();
  const walk = (dir: string, manifest: Manifest, chain: string) => {
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      const depDir = resolvePackageDir(name, dir);
      const depChain = `${chain} > ${name}`;
      if (depDir === undefined) {
        // An optional dependency for another platform is not installed here; a required one must be.
        if (manifest.optionalDependencies?.[name] !== undefined) continue;
        throw new Error(`[svc-sdk] ${depChain} is not installed: run npm install`);
      }
      if (seen.has(depDir)) continue;
      seen.add(depDir);
      const depManifest = JSON.parse(readFileSync(join(depDir, 'package.json'), 'utf8')) as Manifest;
      found.push({ chain: depChain, dir: depDir, manifest: depManifest });
      walk(depDir, depManifest, depChain);
    }
  };
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  walk(root, manifest, manifest.name ?? 'the package');
  return found;
}

/** Folders and files of the repository that never belong in the tarball, whatever `files` says. */
const NEVER_PUBLISHED = /^(?:src|test|bench|examples|scripts|docs|coverage|reports|node_modules|\.github|\.ci|\.stryker-tmp|\.tmp)\/|(?:^|\/)\.env(?:\.|$)|\.tgz$|(?:^|\/)\.npmrc$/;

/** The paths of a file list that must not be published (sources, tests, CI, secrets, tarballs), each with why. */
export function neverPublished(paths: string[]): string[] {
  return paths.filter((path) => NEVER_PUBLISHED.test(path)).map((path) => `[svc-sdk] the tarball holds ${path}: only the build and the docs are published; narrow package.json's files`);
}

/** Every file package.json points at (main, module, types, bin, each exports target), without its leading ./. */
export function pointedAt(manifest: { main?: string; module?: string; types?: string; bin?: Record<string, string>; exports?: unknown }): string[] {
  const targets = new Set<string>();
  const add = (target: unknown) => {
    if (typeof target === 'string') targets.add(target.replace(/^\.\//, ''));
    else if (target && typeof target === 'object') Object.values(target).forEach(add);
  };
  [manifest.main, manifest.module, manifest.types, manifest.bin, manifest.exports].forEach(add);
  return [...targets].sort();
}
