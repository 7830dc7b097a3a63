// The scenario through `import`, as an ESM app loads the package (Node, Bun and Deno run this file),
// then the Node-only uploads of the `node` build.
import * as sdk from 'svc-sdk';
import * as webhooks from 'svc-sdk/webhooks';
import { runNodeExtras } from './node-extras.mjs';
import { runScenario } from './scenario.mjs';

const [baseUrl, label] = globalThis.Deno ? globalThis.Deno.args : process.argv.slice(2);
const observed = await runScenario({ sdk, webhooks, baseUrl, label });
observed.nodeUploads = await runNodeExtras({ sdk, baseUrl });
console.log(`SCENARIO_RESULT ${JSON.stringify(observed)}`);
