import { defineConfig } from 'vitest/config';
import { viteAliases } from './test/support/source-aliases.js';

export default defineConfig({
  // The tool packages import the library by name: in tests, those names are its sources.
  resolve: { alias: viteAliases },
  test: {
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] },
    testTimeout: 20_000,
  },
});
