// `npm run test:mutation -- stryker.transport.config.mjs --mutate 'src/core/transport.ts,src/core/transport-node.ts'`: the
// project's settings (stryker.config.mjs) with the transport's tests alone (test/mutation/vitest.transport.config.ts).
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default { ...base, vitest: { ...base.vitest, configFile: 'test/mutation/vitest.transport.config.ts' } };
