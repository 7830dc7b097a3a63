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
