import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// The node entry registers the file system uploadMany needs (directories, manifests) by a statement
// of its own, which a bundler must keep even when only `Client` is imported: package.json names the
// entry in `sideEffects` (esbuild dropped it from a bundle of src/index.node.ts without that).
const root = fileURLToPath(new URL('../..', import.meta.url));
const built = existsSync(join(root, 'dist', 'index.node.js')) && existsSync(join(root, 'test', 'node_modules', 'svc-sdk'));

describe.skipIf(!built)('uploadMany in a bundle of the built package', () => {
  it.each(['esm', 'cjs'] as const)('esbuild (platform node, %s) keeps the registration: a directory is read, not refused', async (format) => {
    const work = mkdtempSync(join(tmpdir(), 'svc-upload-many-bundle-'));
    try {
      mkdirSync(join(work, 'docs'));
      writeFileSync(join(work, 'docs', 'a.txt'), 'a');
      const outfile = join(work, format === 'esm' ? 'bundle.mjs' : 'bundle.cjs');
      await build({
        stdin: {
          contents: `
            import { Client } from 'svc-sdk';
            const client = new Client({ apiKey: 'vdr_bundle', baseUrl: 'http://127.0.0.1:9', timeout: 2000 });
            client.documents.uploadMany(1, process.argv[2]).then(
              (result) => console.log(JSON.stringify({ failed: result.failed.map((file) => file.path) })),
              (error) => console.log(JSON.stringify({ rejected: error.message })),
            );`,
          resolveDir: join(root, 'test'),
          loader: 'js',
        },
        bundle: true,
        platform: 'node',
        format,
        outfile,
        logLevel: 'error',
      });
      const run = spawnSync(process.execPath, [outfile, join(work, 'docs')], { encoding: 'utf8', timeout: 15_000 });
      // Port 9 refuses the connection: the file is listed, then failed before its body was sent.
      expect(JSON.parse(run.stdout)).toEqual({ failed: ['a.txt'] });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

// uploadMany is loaded on first use (a dynamic import in documents.ts; its Node file system by a
// loader the node entry registers): a bundle of `Client` alone carries neither in what it loads at start.
describe('a Client bundle that never calls uploadMany', () => {
  it.each([
    ['src/index.ts', 'browser'],
    ['src/index.node.ts', 'node'],
  ] as const)('%s (platform %s): the pool, the manifest and the folder reader are in chunks loaded only by uploadMany', async (entry, platform) => {
    const work = mkdtempSync(join(root, '.tmp-upload-many-bundle-'));
    try {
      const stdin = join(work, 'entry.mjs');
      writeFileSync(stdin, `export { Client } from ${JSON.stringify(join(root, entry))};`);
      const result = await build({ entryPoints: [stdin], bundle: true, splitting: true, format: 'esm', platform, write: false, outdir: join(work, 'out'), metafile: true, logLevel: 'error' });
      const outputs = result.metafile.outputs;
      const texts = new Map(result.outputFiles.map((file) => [file.path, file.text]));
      // What the entry loads at start: itself and its static imports, transitively.
      const loaded = new Set<string>();
      const visit = (path: string) => {
        if (loaded.has(path)) return;
        loaded.add(path);
        for (const imported of outputs[path]!.imports) if (imported.kind === 'import-statement') visit(imported.path);
      };
      // The entry's own chunk: esbuild names every lazily imported module an entry point too.
      visit(Object.keys(outputs).find((path) => outputs[path]!.entryPoint && join(root, outputs[path]!.entryPoint!) === stdin)!);
      const atStart = [...loaded].map((path) => texts.get(join(root, path)) ?? '').join('\n');
      const everything = result.outputFiles.map((file) => file.text).join('\n');
      // Words of the pool (upload-many-run.ts) and of the manifest's lock: in the bundle, never at start.
      for (const word of ['stopped by its stopSignal', 'is in use by process']) {
        expect(atStart).not.toContain(word);
        if (platform === 'node' || word === 'stopped by its stopSignal') expect(everything).toContain(word);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
