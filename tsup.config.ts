import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';

type Plugin = NonNullable<Options['plugins']>[number];
type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

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

// Each entry of `svc-sdk/webhooks` is built on its own, as one file (the second config below): a
// serverless receiver's cold start then loads that file, svc-error.js and node:crypto, not the
// seven files that splitting against every other entry made of it (each file Node loads costs a
// resolve, a read, a compile and a link; BENCHMARKS.md, cold start). So that classes stay one
// across entries (`instanceof` holds whichever entry made an error, and `svc-sdk` re-exports the
// very values of `svc-sdk/webhooks`), no other file bundles those entries or SvcError: an import of
// `src/webhooks/index(.node).ts` or `src/shared/svc-error.ts` from outside them resolves to the
// built file, external. The internal webhook modules other entries use (the event reader, the
// memory store, the refusal table) hold no class, and are bundled with those entries.
const ROOT = dirname(fileURLToPath(import.meta.url));
const WEBHOOK_ENTRIES = { 'src/webhooks/index.ts': 'webhooks', 'src/webhooks/index.node.ts': 'webhooks.node' };

/** Resolves imports of the files in `built` (source path → built name) to the built file, external. */
function builtElsewhere(built: Record<string, string>): EsbuildPlugin {
  const byPath = new Map(Object.entries(built).map(([path, name]) => [join(ROOT, path), name]));
  return {
    name: 'built-elsewhere',
    setup(build) {
      // The extension this build gives its own files (tsup builds CJS with splitting as ESM, then converts).
      const extension = build.initialOptions.outExtension?.['.js'] ?? '.js';
      build.onResolve({ filter: /^\.\.?\// }, ({ path, resolveDir, kind }) => {
        const name = kind === 'entry-point' ? undefined : byPath.get(join(resolveDir, path.replace(/\.js$/, '.ts')));
        // Every output file is in dist/ itself, so one relative path serves every importer.
        return name ? { path: `./${name}${extension}`, external: true } : undefined;
      });
    },
  };
}

const shared: Options = {
  format: ['esm', 'cjs'],
  // ky and zod/mini are bundled (tree-shaken) into the client's chunk: Node then loads one file
  // instead of ~60 modules, which halves `import('svc-sdk')` (127 → 72 ms, BENCHMARKS.md), and
  // `require('svc-sdk')` no longer needs require(esm) for ESM-only ky. zod stays a dependency for
  // the published types, which are inferred from its schemas.
  noExternal: ['ky', 'zod'],
  // Shipped in dist/, so stack traces (node --enable-source-maps, Bun, Deno, error trackers) point
  // at src/ files and lines. Without the sources' text (sourcesContent, set below): that would
  // carry all of ky's and zod's files into every map, 2.3 MB of maps in the package instead of 0.5 MB.
  sourcemap: true,
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
};

const entries = {
  index: 'src/index.ts',
  'index.node': 'src/index.node.ts',
  testing: 'src/testing/index.ts',
  // svc-sdk/otel: its peer @opentelemetry/api stays external (tsup leaves peers out), loaded by this entry alone.
  otel: 'src/otel/index.ts',
  // svc-sdk/inbox: its peer bullmq stays external, loaded by the node build of this entry alone;
  // the build for other runtimes (Workers) has the Cloudflare Queues inbox only.
  'inbox.node': 'src/inbox/index.ts',
  inbox: 'src/inbox/edge.ts',
  // svc-sdk/actions: the agent-action ledger; its Redis store takes the user's client (no peer to load).
  actions: 'src/actions/index.ts',
  // svc-sdk/internal: what the tool packages (@svc-sdk/cli, @svc-sdk/mcp) share with the library.
  internal: 'src/internal.ts',
  // svc-sdk/limits: its peer rate-limiter-flexible stays external, loaded by this entry alone.
  limits: 'src/limits/index.ts',
};

export default defineConfig([
  {
    ...shared,
    // Every entry but the webhook ones, and SvcError as a file of its own (no package export: the
    // entries' files import it). `splitting` puts modules shared by several entries in shared chunks.
    entry: { ...entries, 'svc-error': 'src/shared/svc-error.ts' },
    splitting: true,
    esbuildPlugins: [builtElsewhere({ ...WEBHOOK_ENTRIES, 'src/shared/svc-error.ts': 'svc-error' })],
    // The types of every entry, the webhook ones included, in one pass. Internals marked @internal
    // (the upload encoder hook) stay out of the published types.
    dts: {
      entry: { ...entries, ...Object.fromEntries(Object.entries(WEBHOOK_ENTRIES).map(([path, name]) => [name, path])) },
      compilerOptions: { stripInternal: true },
    },
    // Not the webhook entries' files, which the other config writes at the same time.
    clean: ['!webhooks.*'],
  },
  {
    ...shared,
    entry: Object.fromEntries(Object.entries(WEBHOOK_ENTRIES).map(([path, name]) => [name, path])),
    splitting: false,
    esbuildPlugins: [builtElsewhere({ 'src/shared/svc-error.ts': 'svc-error' })],
  },
]);
