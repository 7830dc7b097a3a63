// Runs the scenario in Cloudflare's workerd: bundles consumer/worker.mjs from the packed package
// the way wrangler does (conditions workerd, worker, browser; no Node built-in made external), and
// runs it in Miniflare with nodejs_compat off. Usage: workerd.mjs <consumerDir> <apiUrl>.
import path from 'node:path';
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';

const [consumerDir, apiUrl] = process.argv.slice(2);

const built = await esbuild.build({
  entryPoints: [path.join(consumerDir, 'worker.mjs')],
  absWorkingDir: consumerDir,
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['module', 'main'],
  target: 'es2023',
  logLevel: 'silent',
});

const miniflare = new Miniflare({
  modules: true,
  script: built.outputFiles[0].text,
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
