import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the web build graph', () => {
  it('src/index.ts bundles for the browser with no node:* module and no form-data', async () => {
    const result = await build({
      entryPoints: [`${root}src/index.ts`],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: root,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain('src/uploads/encode.ts');
    expect(inputs).toContain('src/uploads/file-from-path-web.ts');
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((entry) => entry.path));
    const offenders = [...inputs, ...imports].filter(
      (name) => name.startsWith('node:') || /(^|\/)form-data\//.test(name) || name.endsWith('file-from-path.ts'),
    );
    expect(offenders).toEqual([]);
  });

  it('src/index.node.ts does reach a Node built-in (the check above can fail)', async () => {
    const result = await build({
      entryPoints: [`${root}src/index.node.ts`],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: root,
    });
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((entry) => entry.path));
    expect(Object.keys(result.metafile.inputs)).toContain('src/uploads/file-from-path.ts');
    expect(imports.some((name) => name.startsWith('node:'))).toBe(true);
  });
});
