// A Worker module bundled from the packed package the way wrangler does: conditions workerd, worker,
// browser; no Node built-in made external (nodejs_compat off). Used by workerd.mjs and workerd-queue.mjs.
import path from 'node:path';
import * as esbuild from 'esbuild';

/** The bundled text of `consumerDir/<entry>`, an ES module for Miniflare's `script`. */
export async function bundleWorker(consumerDir, entry) {
  const built = await esbuild.build({
    entryPoints: [path.join(consumerDir, entry)],
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
  return built.outputFiles[0].text;
}
