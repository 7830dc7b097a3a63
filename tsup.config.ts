import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['plugins']>[number];

/**
 * Gives classes back their own name. A class that names itself in its body is bundled by esbuild as
 * `var APIError = class _APIError …`, so `APIError.name`, `util.inspect` and stack frames say
 * `_APIError`. esbuild's remedy, `keepNames`, adds a `__name()` call for every class and function,
 * which bundlers cannot tree-shake: measured, `verifySignature` alone grew from 0.58 to 4.6 kB and
 * the Client from 24.3 to 30.3 kB min+gzip. Instead, `class _X` becomes `class X ` (same length,
 * so the source maps stay exact); inside the class body `X` is then the class's own binding, the
 * very class `_X` was. test/build/names.test.ts checks every exported class of every entry.
 */
const restoreClassNames: Plugin = {
  name: 'restore-class-names',
  renderChunk(code) {
    let renamed = code;
    for (const [, name] of code.matchAll(/\bvar (\w+) = class _\1\b/g)) {
      const inner = `_${name}`;
      // Only when `_X` is nothing but that class's own name in this chunk.
      if (new RegExp(`\\b(?:var|let|const|function|class) ${inner}\\b`).test(code.replace(`class ${inner}`, ''))) continue;
      renamed = renamed.replace(new RegExp(`(?<![\\w$.'"\`])${inner}(?![\\w$])`, 'g'), `${name} `);
    }
    return renamed === code ? undefined : { code: renamed };
  },
};

// One build of every entry, ESM and CJS. `splitting` puts modules shared by several entries
// (errors, webhook helpers) in shared chunks, so `svc-sdk` and `svc-sdk/webhooks` export the very
// same classes and `instanceof` holds across them.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'index.node': 'src/index.node.ts',
    webhooks: 'src/webhooks/index.ts',
    'webhooks.node': 'src/webhooks/index.node.ts',
    testing: 'src/testing/index.ts',
    // svc-sdk/otel: its peer @opentelemetry/api stays external (tsup leaves peers out), loaded by this entry alone.
    otel: 'src/otel/index.ts',
    // svc-sdk/inbox: its peer bullmq stays external, loaded by the node build of this entry alone;
    // the build for other runtimes (Workers) has the Cloudflare Queues inbox only.
    'inbox.node': 'src/inbox/index.ts',
    inbox: 'src/inbox/edge.ts',
    // svc-sdk/internal: what the tool packages (@svc-sdk/cli, @svc-sdk/mcp) share with the library.
    internal: 'src/internal.ts',
  },
  format: ['esm', 'cjs'],
  // Internals marked @internal (the upload encoder hook) stay out of the published types.
  dts: { compilerOptions: { stripInternal: true } },
  // ky and zod/mini are bundled (tree-shaken) into the client's chunk: Node then loads one file
  // instead of ~60 modules, which halves `import('svc-sdk')` (127 → 72 ms, BENCHMARKS.md), and
  // `require('svc-sdk')` no longer needs require(esm) for ESM-only ky. zod stays a dependency for
  // the published types, which are inferred from its schemas.
  noExternal: ['ky', 'zod'],
  splitting: true,
  // Shipped in dist/, so stack traces (node --enable-source-maps, Bun, Deno, error trackers) point
  // at src/ files and lines. Without the sources' text (sourcesContent, set below): that would
  // carry all of ky's and zod's files into every map, 2.3 MB of maps in the package instead of 0.5 MB.
  sourcemap: true,
  clean: true,
  target: 'es2023',
  platform: 'neutral',
  treeshake: true,
  plugins: [restoreClassNames],
  // svc-sdk/testing loads its peer msw by a top-level await in ESM and by require in CJS
  // (src/testing/msw.ts): each build drops the statement labelled for the other format.
  esbuildOptions(options, { format }) {
    options.dropLabels = [format === 'cjs' ? 'ESM_BUILD' : 'CJS_BUILD'];
    options.sourcesContent = false;
  },
});
