import { defineConfig } from 'tsup';

// The `svc-sdk` bin: one ESM entry; its dependencies (svc-sdk, @svc-sdk/mcp, msw, bullmq, ...) stay
// imports, loaded by the command that needs them.
export default defineConfig({
  entry: { cli: 'src/main.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'es2023',
  platform: 'node',
  treeshake: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
});
