// Bundle sizes as a browser app would ship them: esbuild, browser platform, minified, gzipped.
import { gzipSync } from 'node:zlib';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { table } from './lib/stats.mjs';

const cases = [
  { name: 'svc-sdk/webhooks: verifySignature only', code: "export { verifySignature } from 'svc-sdk/webhooks';", target: 600 },
  { name: 'svc-sdk/webhooks: createWebhookHandler', code: "export { createWebhookHandler } from 'svc-sdk/webhooks';", target: 1500 },
  { name: 'svc-sdk: Client (everything a client uses)', code: "export { Client } from 'svc-sdk';", target: 'floor + 4096' },
  { name: 'ky (floor part)', code: "export { default } from 'ky';" },
  { name: 'zod/mini as the client uses it (floor part)', code: "import * as z from 'zod/mini'; export const s = z.looseObject({ a: z.string(), b: z.optional(z.int()) }); export const p = z.safeParse;" },
  { name: 'ky + zod/mini (the floor)', code: "export { default } from 'ky'; import * as z from 'zod/mini'; export const s = z.looseObject({ a: z.string(), b: z.optional(z.int()) }); export const p = z.safeParse;" },
  { name: 'zod, full, `import { z }` (for contrast)', code: "import { z } from 'zod'; export const s = z.object({ a: z.string() });" },
];

/** Bundles one entry's source and returns its minified and gzipped byte counts. */
async function measure(code, directory) {
  const entry = join(directory, `entry-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(entry, code);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    absWorkingDir: process.cwd(),
    nodePaths: [join(process.cwd(), 'node_modules')],
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0].contents;
  return { minified: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length };
}

export async function benchBundleSize() {
  const directory = mkdtempSync(join(process.cwd(), '.tmp-bundle-'));
  try {
    const results = [];
    for (const { name, code, target } of cases) {
      try {
        results.push({ name, target, ...(await measure(code, directory)) });
      } catch (error) {
        results.push({ name, target, error: error.message.split('\n')[0] });
      }
    }
    const floor = results.find((r) => r.name.startsWith('ky + zod/mini'))?.gzipped ?? NaN;
    for (const result of results) if (result.target === 'floor + 4096') result.target = floor + 4096;
    return results;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export function renderBundleSize(results) {
  return table(
    ['bundle', 'min', 'min+gzip', 'target (min+gzip)', ''],
    results.map(({ name, minified, gzipped, target, error }) =>
      error
        ? [name, '—', '—', target ? `≤ ${target} B` : '', `not built: ${error}`]
        : [name, `${minified} B`, `${gzipped} B`, target ? `≤ ${target} B` : '', target ? (gzipped <= target ? 'met' : 'missed') : ''],
    ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(renderBundleSize(await benchBundleSize()));
