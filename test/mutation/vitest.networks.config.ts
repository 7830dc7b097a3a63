// The mutation run of the network modules (stryker.networks.config.mjs): the mutation settings with only
// the tests that guard the retry budget, the throttling headers, the governor and the limits.
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig([
  'test/client/retry-budget.test.ts',
  'test/client/throttling-headers.test.ts',
  'test/client/governor.test.ts',
  'test/client/retries.test.ts',
  'test/testing/rate-limit-mode.test.ts',
  'test/limits/**/*.test.ts',
]);
