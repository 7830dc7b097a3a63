// `npm run test:mutation -- stryker.shared.config.mjs --mutate 'src/shared/state-dir.ts,src/shared/redact.ts'`:
// the project's settings (stryker.config.mjs) with the tests of src/shared's rules alone (the state
// folders, the redaction rule: test/mutation/vitest.shared.config.ts).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default { ...base, vitest: { ...base.vitest, configFile: 'test/mutation/vitest.shared.config.ts' } };
