// The tool packages (packages/cli, packages/mcp) are separate npm packages: each imports the
// library as an integrator would, through svc-sdk's public entries, plus the one documented
// internal entry `svc-sdk/internal`; every other bare import is a dependency of its own package.json;
// no relative import leaves the package. All packages are versioned together.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const library = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; exports: Record<string, unknown>; workspaces: string[] };
/** `svc-sdk`, `svc-sdk/webhooks`, ...: the names its export map allows (package.json itself aside). */
const LIBRARY_ENTRIES = Object.keys(library.exports)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? 'svc-sdk' : `svc-sdk/${key.slice(2)}`));

/** Every .ts file below `directory`. */
function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The specifiers a file imports (static, dynamic, type-only and re-exports alike). */
function specifiers(file: string): string[] {
  // Comments aside: a JSDoc @example imports the package by its own name.
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(/(?:\bfrom|\bimport\(|^import)\s*'([^']+)'/gm)].map((match) => match[1]!);
}

/** What in `file` crosses the package's boundary the wrong way, as `file → specifier: why`. */
export function boundaryViolations(packageDir: string, dependencies: readonly string[]): string[] {
  const src = join(packageDir, 'src');
  return sources(src).flatMap((file) =>
    specifiers(file).flatMap((specifier) => {
      const where = `${relative(ROOT, file)} → ${specifier}`;
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier);
        return relative(src, target).startsWith('..') ? [`${where}: a relative import out of the package`] : [];
      }
      if (specifier.startsWith('node:')) return [];
      if (specifier === 'svc-sdk' || specifier.startsWith('svc-sdk/')) {
        return LIBRARY_ENTRIES.includes(specifier) ? [] : [`${where}: not an entry of svc-sdk's export map`];
      }
      const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
      return dependencies.includes(name) ? [] : [`${where}: ${name} is not a dependency of ${relative(ROOT, packageDir)}/package.json`];
    }),
  );
}

describe('the tool packages', () => {
  const packages = library.workspaces.map((dir) => ({ dir: join(ROOT, dir), manifest: JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> } }));

  it('are the CLI and the MCP server', () => {
    expect(packages.map(({ manifest }) => manifest.name).sort()).toEqual(['@svc-sdk/cli', '@svc-sdk/mcp']);
  });

  it.each(packages.map(({ dir, manifest }) => [manifest.name, dir, manifest] as const))('%s imports the library through its public entries (and svc-sdk/internal) only', (_name, dir, manifest) => {
    expect(sources(join(dir, 'src')).length).toBeGreaterThan(5);
    expect(boundaryViolations(dir, Object.keys(manifest.dependencies))).toEqual([]);
  });

  it.each(packages.map(({ manifest }) => [manifest.name, manifest] as const))('%s has the library\'s version, and depends on exactly that svc-sdk', (_name, manifest) => {
    expect(manifest.version).toBe(library.version);
    expect(manifest.dependencies['svc-sdk']).toBe(library.version);
    for (const [dependency, range] of Object.entries(manifest.dependencies)) if (dependency.startsWith('@svc-sdk/')) expect(range).toBe(library.version);
  });

  it('the check sees an import of a library file, a relative path out of the package, and an undeclared package', () => {
    const fake = join(ROOT, 'test', 'fixtures', 'boundary');
    expect(boundaryViolations(fake, ['zod'])).toEqual([
      'test/fixtures/boundary/src/bad.ts → svc-sdk/src/client.js: not an entry of svc-sdk\'s export map',
      'test/fixtures/boundary/src/bad.ts → ../../../../src/client.js: a relative import out of the package',
      'test/fixtures/boundary/src/bad.ts → left-pad: left-pad is not a dependency of test/fixtures/boundary/package.json',
    ]);
  });
});
