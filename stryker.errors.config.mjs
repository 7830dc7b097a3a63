// `npm run test:mutation -- stryker.errors.config.mjs --mutate 'src/core/errors.ts:…,src/shared/redact.ts:…'`:
// the project's settings (stryker.config.mjs) with the tests of the client's errors, hooks and logs
// and of the shared rules they use alone (test/mutation/vitest.errors.config.ts says which).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default { ...base, vitest: { ...base.vitest, configFile: 'test/mutation/vitest.errors.config.ts' } };
