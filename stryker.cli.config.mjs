// `npm run test:mutation -- stryker.cli.config.mjs`: the project's settings (stryker.config.mjs)
// with the CLI's sources (packages/cli/src) alone mutated, and only the tests that run its commands
// (test/mutation/vitest.cli.config.ts says which and why).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: base.mutate.filter((pattern) => pattern.replace(/^!/, '').startsWith('packages/cli/')),
  vitest: { ...base.vitest, configFile: 'test/mutation/vitest.cli.config.ts' },
};
