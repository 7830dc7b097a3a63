// `npm run test:mutation -- stryker.mcp-units.config.mjs --mutate 'packages/mcp/src/untrusted.ts,…'`: the
// project's settings with the unit tests of packages/mcp/src's security modules alone
// (test/mcp/mutation.units.vitest.config.ts says why).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default { ...base, vitest: { ...base.vitest, configFile: 'test/mcp/mutation.units.vitest.config.ts' }, incrementalFile: 'reports/mutation/stryker-incremental-mcp-units.json' };
