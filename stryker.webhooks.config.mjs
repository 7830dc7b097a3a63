// `npm run test:mutation -- stryker.webhooks.config.mjs --mutate 'src/webhooks/receiver.ts,…'`: the
// project's settings (stryker.config.mjs) with the tests of the webhook receiver alone
// (test/mutation/vitest.webhooks.config.ts says why).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default { ...base, vitest: { ...base.vitest, configFile: 'test/mutation/vitest.webhooks.config.ts' } };
