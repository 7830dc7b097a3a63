import { defineConfig } from 'tsup';

// One build of every entry, ESM and CJS. `splitting` puts modules shared by several entries
// (errors, webhook helpers) in shared chunks, so `svc-sdk` and `svc-sdk/webhooks` export the very
// same classes and `instanceof` holds across them.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'index.node': 'src/index.node.ts',
    webhooks: 'src/webhooks/index.ts',
    'webhooks.node': 'src/webhooks/index.node.ts',
    testing: 'src/testing/index.ts',
    cli: 'src/cli.ts',
  },
  format: ['esm', 'cjs'],
  // Internals marked @internal (the upload encoder hook) stay out of the published types.
  dts: { compilerOptions: { stripInternal: true } },
  // ky and zod/mini are bundled (tree-shaken) into the client's chunk: Node then loads one file
  // instead of ~60 modules, which halves `import('svc-sdk')` (127 → 72 ms, BENCHMARKS.md), and
  // `require('svc-sdk')` no longer needs require(esm) for ESM-only ky. zod stays a dependency for
  // the published types, which are inferred from its schemas.
  noExternal: ['ky', 'zod'],
  splitting: true,
  sourcemap: false,
  clean: true,
  target: 'es2023',
  platform: 'neutral',
  treeshake: true,
  // svc-sdk/testing loads its peer msw by a top-level await in ESM and by require in CJS
  // (src/testing/msw.ts): each build drops the statement labelled for the other format.
  esbuildOptions(options, { format }) {
    options.dropLabels = [format === 'cjs' ? 'ESM_BUILD' : 'CJS_BUILD'];
  },
});
