import { defineConfig } from 'tsup';

// @svc-sdk/mcp: one entry, ESM and CJS. Its dependencies (svc-sdk, @modelcontextprotocol/server,
// zod) stay imports: tsup leaves dependencies out, so the server shares the application's svc-sdk.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2023',
  platform: 'node',
  treeshake: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
});
