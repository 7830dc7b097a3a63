// Runs the scenario in Cloudflare's workerd: bundles consumer/worker.mjs from the packed package
// the way wrangler does (conditions workerd, worker, browser; no Node built-in made external), and
// runs it in Miniflare with nodejs_compat off. Usage: workerd.mjs <consumerDir> <apiUrl>.
import { Miniflare } from 'miniflare';
import { bundleWorker } from './workerd-bundle.mjs';

const [consumerDir, apiUrl] = process.argv.slice(2);

const script = await bundleWorker(consumerDir, 'worker.mjs');

const miniflare = new Miniflare({
  modules: true,
  script,
  compatibilityDate: '2026-04-01',
  compatibilityFlags: [], // nodejs_compat off, as in a Worker that never asked for it
});
try {
  const response = await miniflare.dispatchFetch(`http://worker.test/?api=${encodeURIComponent(apiUrl)}`);
  const outcome = await response.json();
  if (!outcome.ok) throw new Error(`the Worker answered ${response.status}:\n${outcome.error}`);
  console.log(`SCENARIO_RESULT ${JSON.stringify(outcome.observed)}`);
} finally {
  await miniflare.dispose();
}
