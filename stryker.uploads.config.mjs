// `npm run test:mutation -- stryker.uploads.config.mjs --mutate 'src/uploads/**/*.ts,…'`: the
// project's settings (stryker.config.mjs) with the tests of test/uploads alone
// (test/mutation/vitest.uploads.config.ts says why).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default { ...base, vitest: { ...base.vitest, configFile: 'test/mutation/vitest.uploads.config.ts' } };
