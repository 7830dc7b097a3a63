// One home for the limits a user meets (src/shared/limits.ts): every one is a documented number there,
// and no other module of the library or of the tool packages defines a constant of the same name, so a
// second copy cannot drift from the first. The tools read the ones they share through svc-sdk/internal.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as limits from '../../src/shared/limits.js';
import * as internal from '../../src/internal.js';

const ROOT = new URL('../../', import.meta.url);
const HOME = 'src/shared/limits.ts';

/** Every .ts file below `folder` (relative to the repository), with its text. */
function sources(folder: string): Array<[path: string, text: string]> {
  return readdirSync(new URL(folder, ROOT), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${folder}/${file.replaceAll('\\', '/')}`)
    .map((path) => [path, readFileSync(new URL(path, ROOT), 'utf8')]);
}

describe('src/shared/limits.ts', () => {
  const names = Object.keys(limits);
  const home = readFileSync(new URL(HOME, ROOT), 'utf8');

  it('holds whole numbers only, each with its JSDoc', () => {
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) {
      expect(Number.isSafeInteger(limits[name as keyof typeof limits]), name).toBe(true);
      expect(home, name).toMatch(new RegExp(`\\*/\\nexport const ${name} = `));
    }
  });

  it('is the only place any of them is defined, in src and in the tool packages', () => {
    const files = [...sources('src'), ...sources('packages/cli/src'), ...sources('packages/mcp/src')].filter(([path]) => path !== HOME);
    const definitions = files.flatMap(([path, text]) => names.filter((name) => new RegExp(`\\bconst ${name}\\b`).test(text)).map((name) => `${path}: ${name}`));
    expect(definitions).toEqual([]);
  });

  it('gives the tools the ones they share through svc-sdk/internal, as they are', () => {
    for (const name of ['DEFAULT_TOLERANCE_MS', 'FUTURE_SKEW_MS', 'DEFAULT_UPLOAD_CONCURRENCY', 'MAX_UPLOAD_CONCURRENCY', 'MAX_PAGE_SIZE', 'DEFAULT_MAX_RECORDS', 'DEFAULT_MCP_MAX_BODY_BYTES'] as const) {
      expect(internal[name], name).toBe(limits[name]);
    }
  });
});
