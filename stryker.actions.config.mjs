// `npm run test:mutation -- stryker.actions.config.mjs --mutate 'src/actions/**/*.ts'`: the project's
// settings (stryker.config.mjs) with the tests of the action ledger alone
// (test/mutation/vitest.actions.config.ts says why).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default { ...base, vitest: { ...base.vitest, configFile: 'test/mutation/vitest.actions.config.ts' } };
