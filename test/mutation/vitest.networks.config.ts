// The mutation run of the network modules (stryker.networks.config.mjs): the mutation settings with only
// the tests that guard the retry budget, the throttling headers, the governor and the limits, and the
// transport's (proxies and trust, with real proxies on loopback, and the install a missing undici asks for; not the NO_PROXY table or the undici
// mismatch, nor the ca option under Node 22.14 (old-node.test.ts), which run the SDK bundled in child processes, where no mutant is seen).
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig([
  'test/client/retry-budget.test.ts',
  'test/client/throttling-headers.test.ts',
  'test/client/governor.test.ts',
  'test/client/retries.test.ts',
  'test/testing/rate-limit-mode.test.ts',
  'test/limits/**/*.test.ts',
  'test/network/proxies.test.ts',
  'test/network/transport.test.ts',
  'test/network/undici-missing.test.ts',
  'test/network/undici-manifest-unreadable.test.ts',
  'test/network/trusted-certificates.test.ts',
  'test/network/no-proxy.test.ts',
  'test/client/web-transport.test.ts',
]);
