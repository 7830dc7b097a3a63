// The mutation run of the transport alone (stryker.transport.config.mjs): the tests of proxies and
// trust, without the fleet-limit and rate-limit-mode tests of vitest.networks.config.ts, which keep
// a rate on a wall clock and can fail the initial test run on a loaded machine (the transport's
// mutants never reach them).
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig(['test/network/transport.test.ts', 'test/network/proxies.test.ts']);
