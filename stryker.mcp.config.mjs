// `npm run test:mutation -- stryker.mcp.config.mjs --mutate 'packages/mcp/src/**/*.ts'`: the project's
// settings (stryker.config.mjs) with the in-process MCP tests alone (test/mcp/mutation.vitest.config.ts
// says why).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default { ...base, vitest: { ...base.vitest, configFile: 'test/mcp/mutation.vitest.config.ts' } };
