// The quick partial Stryker run over src/mcp's security modules (stryker.mcp-units.config.mjs):
// only the tests written for them, so each mutant runs a few files, not every MCP flow that
// happens to pass through (escapeFields runs in every tool call). Its score is a lower bound.
import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/mcp/{untrusted,upload-policy,commit-tokens,stdio-cap,trips,http}.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
  },
});
