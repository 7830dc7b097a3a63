// The vitest settings Stryker runs with: the project's own (vitest.config.ts), minus what cannot
// catch a mutant in src/ and only costs time under mutation: the type tests (tsc sees no runtime
// change), and tests that run the built dist/ or a packed copy rather than src/ (test/release reads
// dist/, which Stryker's sandbox does not copy: with it, the first test run failed and no mutant ran;
// test/cli's tests of the built bin skip themselves there, and those that run the bin bundled from src/
// in a child process, where no mutant is seen, are left out: test/cli/upload-kill, upload-pty),
// and the core's structure test, which reads src/ as text: Stryker's instrumented copy fails it; the
// file-switch count, which runs src/ in a child process under a debugger (no mutant is seen there).
// The inbox's no-loss scenario imports the package by its name (`svc-sdk`, which resolves to dist/):
// in the sandbox its import failed the first test run.
import path from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from '../../vitest.config.js';

export default mergeConfig(
  base,
  defineConfig({
    root: path.resolve(import.meta.dirname, '../..'),
    test: {
      typecheck: { enabled: false },
      exclude: ['**/node_modules/**', 'test/cli/demo.test.ts', 'test/cli/peers.test.ts', 'test/cli/upload-kill.test.ts', 'test/cli/upload-pty.test.ts', 'test/build/**', 'test/readme/**', 'test/release/**', 'test/client/core-structure.test.ts', 'test/webhooks/node-types.test.ts', 'test/inbox/no-loss.test.ts', 'test/inbox/crash.test.ts', 'test/file-switches.test.ts'],
    },
  }),
);
