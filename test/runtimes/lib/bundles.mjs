// What a bundler makes of the packed package for the web: esbuild metafiles show every module a
// browser bundle pulls in (no Node built-in, no form-data; no ky or zod under svc-sdk/webhooks; no
// bullmq under svc-sdk/inbox, bundled for the web and for workerd),
// and minified + gzipped bundles are measured against the size budget.
import { builtinModules } from 'node:module';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

/** The budget of a verify-only `svc-sdk/webhooks` bundle, minified and gzipped. */
export const VERIFY_BUDGET_BYTES = 1536;

// Built-ins are marked external so that a reached one shows in the metafile instead of failing the build.
const BUILTINS = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** How wrangler resolves a Worker's imports (as lib/workerd.mjs bundles the workerd rows). */
const WORKERD = { platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'] };

/**
 * Bundles `contents` (an entry written in place) as the web gets it, or as wrangler does for a
 * Worker with `workerd: true`; resolves with esbuild's result.
 */
async function bundle(consumerDir, contents, { loader = 'js', minify = false, platform = 'browser', workerd = false } = {}) {
  return esbuild.build({
    ...(workerd ? WORKERD : { platform }),
    stdin: { contents, resolveDir: consumerDir, loader, sourcefile: 'entry.js' },
    absWorkingDir: consumerDir,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    target: 'es2023',
    minify,
    external: BUILTINS,
    logLevel: 'silent',
  });
}

/** The packages (by node_modules folder) and externals that a bundle's metafile shows. */
function contentsOf(metafile) {
  const packages = new Set();
  const externals = new Set();
  for (const [file, input] of Object.entries(metafile.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) packages.add(match[1]);
    for (const imported of input.imports) if (imported.external) externals.add(imported.path);
  }
  return { packages, externals };
}

/**
 * Checks the browser builds: `svc-sdk` through import and require, and `svc-sdk/webhooks`.
 * Resolves with a summary line; rejects naming what a browser bundle should not contain.
 */
export async function checkBrowserBuilds(consumerDir) {
  const cases = [
    { name: 'svc-sdk (import)', contents: `export * from 'svc-sdk';`, forbidden: ['form-data'] },
    { name: 'svc-sdk (require)', contents: `module.exports = require('svc-sdk');`, forbidden: ['form-data'] },
    { name: 'svc-sdk/webhooks (import)', contents: `export * from 'svc-sdk/webhooks';`, forbidden: ['form-data', 'ky', 'zod'] },
    { name: 'svc-sdk/webhooks (require)', contents: `module.exports = require('svc-sdk/webhooks');`, forbidden: ['form-data', 'ky', 'zod'] },
    // The inbox outside Node is the Cloudflare Queues inbox alone: BullMQ (installed here, a peer)
    // needs Node's sockets, and a Worker without nodejs_compat has no Node built-in to give it.
    { name: 'svc-sdk/inbox (workerd)', contents: `export * from 'svc-sdk/inbox';`, forbidden: ['bullmq', 'ioredis', 'form-data'], workerd: true },
    { name: 'svc-sdk/inbox (import)', contents: `export * from 'svc-sdk/inbox';`, forbidden: ['bullmq', 'ioredis', 'form-data'] },
  ];
  const problems = [];
  for (const { name, contents, forbidden, workerd } of cases) {
    const { metafile, outputFiles } = await bundle(consumerDir, contents, { workerd });
    const { packages, externals } = contentsOf(metafile);
    // The build may inline zod into the package's own chunks, out of sight of the metafile's paths:
    // `_zod` is the internal property every zod 4 schema carries.
    if (forbidden.includes('zod') && outputFiles[0].text.includes('_zod')) packages.add('zod');
    if (!packages.has('svc-sdk')) problems.push(`${name}: the bundle does not contain svc-sdk at all`);
    const builtins = [...externals].filter((external) => BUILTINS.includes(external));
    if (builtins.length) problems.push(`${name}: Node built-ins ${builtins.join(', ')}`);
    const found = forbidden.filter((pkg) => packages.has(pkg));
    if (found.length) problems.push(`${name}: ${found.join(', ')} bundled`);
  }
  if (problems.length) throw new Error(`browser builds are not clean:\n${problems.join('\n')}`);
  return `${cases.length} bundles: no Node built-in, no form-data; webhooks without ky/zod; inbox (workerd too) without bullmq`;
}

/** Minified + gzipped size of a browser bundle of `contents`, with minified bytes per package. */
async function measure(consumerDir, contents) {
  const result = await bundle(consumerDir, contents, { minify: true });
  const code = result.outputFiles[0].contents;
  const [output] = Object.values(result.metafile.outputs);
  const byPackage = {};
  for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
    const owner = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? 'entry';
    byPackage[owner] = (byPackage[owner] ?? 0) + bytesInOutput;
  }
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length, byPackage };
}

/**
 * Measures the budgeted and reported sizes; resolves with the numbers and whether the budget of
 * the verify-only webhooks bundle holds. The package comes from the consumer project (as
 * installed); ky and zod/mini, for comparison, from the project's own node_modules (the build may
 * bundle them, so the tarball need not depend on them).
 */
export async function measureSizes(consumerDir, root) {
  const verify = await measure(consumerDir, `export { verifySignature } from 'svc-sdk/webhooks';`);
  const handler = await measure(consumerDir, `export { createWebhookHandler } from 'svc-sdk/webhooks';`);
  const client = await measure(consumerDir, `export * from 'svc-sdk';`);
  const ky = await measure(root, `export { default } from 'ky';`);
  const zodMini = await measure(root, `export * from 'zod/mini';`);
  return { verify, handler, client, ky, zodMini, withinBudget: verify.gzipped <= VERIFY_BUDGET_BYTES };
}
