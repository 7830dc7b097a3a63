// `npm run test:mutation -- stryker.networks.config.mjs --mutate 'src/core/retry-budget.ts,…'`: the project's
// settings (stryker.config.mjs) with the tests of the network modules alone (test/mutation/vitest.networks.config.ts).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default { ...base, vitest: { ...base.vitest, configFile: 'test/mutation/vitest.networks.config.ts' } };
