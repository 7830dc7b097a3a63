// The quick partial Stryker run over packages/mcp/src's security modules (stryker.mcp-units.config.mjs):
// only the tests written for them, so each mutant runs a few files, not every MCP flow that
// happens to pass through (escapeFields runs in every tool call). Its score is a lower bound.
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { viteAliases } from '../support/source-aliases.js';

export default defineConfig({
  resolve: { alias: viteAliases },
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/mcp/{untrusted,upload-policy,commit-tokens,stdio-cap,trips,http}.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
  },
});
