// Vitest settings for a partial Stryker run over packages/mcp/src (a stryker config with
// `vitest: { configFile: 'test/mcp/mutation.vitest.config.ts' }` and `mutate: ['packages/mcp/src/**/*.ts']`):
// the in-process MCP tests only; the spawned ones (transports, hosts, cli, entry) run dist/, not src/.
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { viteAliases } from '../support/source-aliases.js';

export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  resolve: { alias: viteAliases },
  test: {
    include: ['test/mcp/{tools,commit,commit-tokens,flow,secrets,schemas,budget,consent}.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
  },
});
