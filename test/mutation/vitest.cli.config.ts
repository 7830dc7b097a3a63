// The mutation run of packages/cli/src alone (stryker.cli.config.mjs): the mutation settings
// (vitest.config.ts here) with only the tests that run the CLI's commands in this process: test/cli,
// `svc-sdk mcp`'s command line (test/mcp/cli.test.ts) and `svc-sdk upload` (test/uploads/upload-many-cli.test.ts).
// A mutant of the library those commands call is the library's runs' to catch.
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig(['test/cli/**/*.test.ts', 'test/mcp/cli.test.ts', 'test/uploads/upload-many-cli.test.ts'], {
  // Read by the few tests that only measure scale: skipped here.
  env: { SVC_MUTATION_RUN: '1' },
});
