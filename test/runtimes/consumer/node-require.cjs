// The scenario through `require`, as a CommonJS app loads the package (the package's CJS build),
// then the Node-only uploads of the `node` build.
const sdk = require('svc-sdk');
const webhooks = require('svc-sdk/webhooks');

const [baseUrl, label] = process.argv.slice(2);
// Only the scenario files are ESM; the package itself was loaded by `require` above.
async function main() {
  const { runScenario } = await import('./scenario.mjs');
  const { runNodeExtras } = await import('./node-extras.mjs');
  const observed = await runScenario({ sdk, webhooks, baseUrl, label });
  observed.nodeUploads = await runNodeExtras({ sdk, baseUrl });
  console.log(`SCENARIO_RESULT ${JSON.stringify(observed)}`);
}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
