// Builds the throwaway consumer project: the package packed by npm, installed from its tarball
// (its dependencies from the npm cache, the registry only for what the cache lacks), beside the
// scenario files and one small TypeScript project per moduleResolution of the matrix.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quietNpm, run, tail } from './process.mjs';

const TEMPLATE_DIR = fileURLToPath(new URL('../consumer/', import.meta.url));

/** The TypeScript consumers: each a folder with its own package.json type and tsconfig. */
export const TYPECHECK_PROJECTS = [
  {
    name: 'node16-esm',
    type: 'module',
    compilerOptions: { module: 'node16', moduleResolution: 'node16', lib: ['es2023'], types: ['node'] },
  },
  {
    name: 'node16-cjs',
    type: 'commonjs',
    compilerOptions: { module: 'node16', moduleResolution: 'node16', lib: ['es2023'], types: ['node'] },
  },
  {
    name: 'nodenext',
    type: 'module',
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2023'], types: ['node'] },
  },
  {
    // A browser app's setup: bundler resolution, DOM types and no Node types at all.
    name: 'bundler',
    type: 'module',
    compilerOptions: { module: 'esnext', moduleResolution: 'bundler', lib: ['es2023', 'dom', 'dom.iterable'], types: [] },
  },
];

/** Packs the package in `root` into `workDir`; resolves with the tarball's path and file list. */
export async function pack(root, workDir) {
  const result = await run('npm', ['pack', '--json', '--pack-destination', workDir], { cwd: root, timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`npm pack failed:\n${tail(quietNpm(result.stderr + result.stdout))}`);
  const [packed] = JSON.parse(result.stdout.slice(result.stdout.indexOf('[')));
  return { tarball: path.join(workDir, packed.filename), files: packed.files.map((file) => file.path), size: packed.size };
}

/**
 * Creates `workDir/consumer` from the templates and installs the tarball into it, with the
 * package's peer dependencies (the emulator's HTTP stack) and @types/node for the TS consumers.
 */
export async function installConsumer({ root, workDir, tarball }) {
  const consumerDir = path.join(workDir, 'consumer');
  await cp(TEMPLATE_DIR, consumerDir, { recursive: true });
  const project = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
  const ownVersion = (name) => project.devDependencies?.[name] ?? project.dependencies?.[name];
  // Peers get the version the project itself develops with, so the npm cache already has them.
  const peers = Object.fromEntries(
    Object.entries(project.peerDependencies ?? {}).map(([name, range]) => [name, ownVersion(name) ?? range]),
  );
  const manifest = {
    name: 'svc-sdk-runtime-consumer',
    private: true,
    type: 'module',
    dependencies: { 'svc-sdk': `file:${path.relative(consumerDir, tarball)}`, ...peers },
    devDependencies: { '@types/node': ownVersion('@types/node') ?? '*' },
  };
  await writeFile(path.join(consumerDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const install = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', '--loglevel=error'],
    { cwd: consumerDir, timeoutMs: 300_000 },
  );
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${tail(quietNpm(install.stderr + install.stdout))}`);

  const usage = await readFile(path.join(consumerDir, 'typecheck', 'usage.ts.template'), 'utf8');
  for (const { name, type, compilerOptions } of TYPECHECK_PROJECTS) {
    const dir = path.join(consumerDir, `types-${name}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ private: true, type }));
    // skipLibCheck off: the package's own .d.ts files are checked too, as a strict consumer would.
    const tsconfig = {
      compilerOptions: { target: 'es2023', strict: true, noEmit: true, skipLibCheck: false, ...compilerOptions },
      files: ['index.ts'],
    };
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    await writeFile(path.join(dir, 'index.ts'), usage);
  }
  return { consumerDir, peers: Object.keys(peers) };
}

/**
 * Installs the tarball alone into a fresh project, as `npm install svc-sdk` would, and resolves with
 * every warning npm printed about it (the machine's own npmrc noise aside): a user sees each one.
 * Catches, for one, a lifecycle script that names a file the package does not ship (npm 11 warns
 * about install scripts not covered by allowScripts, and `prepare` is one for a tarball).
 */
export async function installWarnings(workDir, tarball) {
  const dir = path.join(workDir, 'fresh-install');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'fresh-install', private: true, type: 'module' }, null, 2)}\n`);
  const install = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', '--loglevel=warn', path.relative(dir, tarball)],
    { cwd: dir, timeoutMs: 300_000 },
  );
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${tail(quietNpm(install.stderr + install.stdout))}`);
  return quietNpm(`${install.stderr}\n${install.stdout}`)
    .split('\n')
    .filter((line) => /^npm (warn|WARN)/.test(line));
}
