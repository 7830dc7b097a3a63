// Vitest settings for a partial Stryker run over packages/mcp/src (stryker.mcp.config.mjs: `npm run
// test:mutation -- stryker.mcp.config.mjs --mutate 'packages/mcp/src/**/*.ts'`): the in-process MCP tests
// only; the spawned ones (transports, hosts, cli, entry, processes, stdio-cap's last) run dist/,
// which the sandbox does not copy, so they skip there.
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { viteAliases } from '../support/source-aliases.js';

export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  resolve: { alias: viteAliases },
  test: {
    include: ['test/mcp/{tools,texts,actions,ask,upload-outcomes,commit,commit-tokens,cancel,flow,secrets,schemas,budget,consent,steered,trips,http,stdio-cap,untrusted,upload-policy,documents}.test.ts'],
    typecheck: { enabled: false },
    testTimeout: 20_000,
  },
});
