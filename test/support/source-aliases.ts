// The library's public names as its sources, for vitest and for the scripts tests bundle with
// esbuild: a test of the tools (packages/*) then runs against src/ as it is now, and shares its
// classes (errors, Client) with the tests that import src/ by path. tsconfig.json's `paths` say the same.
import { fileURLToPath } from 'node:url';

const at = (file: string) => fileURLToPath(new URL(`../../${file}`, import.meta.url));

/** Each public name of the library (and of @svc-sdk/mcp) and the source file it stands for. */
export const SOURCE_ALIASES: Readonly<Record<string, string>> = {
  'svc-sdk': at('src/index.node.ts'),
  'svc-sdk/webhooks': at('src/webhooks/index.node.ts'),
  'svc-sdk/testing': at('src/testing/index.ts'),
  'svc-sdk/otel': at('src/otel/index.ts'),
  'svc-sdk/inbox': at('src/inbox/index.ts'),
  'svc-sdk/internal': at('src/internal.ts'),
  '@svc-sdk/mcp': at('packages/mcp/src/index.ts'),
};

/** The same, as vite's alias list (exact names only: `svc-sdk` must not also match `svc-sdk/testing`). */
export const viteAliases = Object.entries(SOURCE_ALIASES).map(([name, file]) => ({ find: new RegExp(`^${name.replace('/', '\\/')}$`), replacement: file }));
