// `npm run test:mutation -- stryker.inbox.config.mjs --concurrency 1`: the project's settings
// (stryker.config.mjs) with src/inbox alone, mutated, and the inbox's tests alone
// (test/mutation/vitest.inbox.config.ts says which, and why).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: base.mutate.filter((glob) => glob.startsWith('src/inbox/') || glob.startsWith('!src/inbox/')),
  vitest: { ...base.vitest, configFile: 'test/mutation/vitest.inbox.config.ts' },
  incrementalFile: 'reports/mutation/stryker-inbox-incremental.json',
};
