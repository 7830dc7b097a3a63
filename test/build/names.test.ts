import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import { describe, expect, test } from 'vitest';

// What users get from the built package (npm test builds it before vitest runs): every exported
// class keeps its own name (`.name`, `util.inspect`, stack frames: `APIError`, not `_APIError` or
// `Client2`), and the source maps shipped in dist/ lead stack traces back to src/.
const dist = new URL('../../dist/', import.meta.url);
const require = createRequire(import.meta.url);
// svc-sdk/testing exports functions only.
const entries = ['index', 'index.node', 'webhooks', 'webhooks.node'];

/** A class, as opposed to a plain function: its source text starts with `class`. */
function isClass(value: unknown): value is abstract new (...args: never[]) => unknown {
  return typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));
}

describe('the built package', () => {
  test('is built (npm run build)', () => {
    expect(existsSync(new URL('index.js', dist)), 'dist/ is missing: run `npm run build` first').toBe(true);
  });

  describe.each(entries)('dist/%s', (entry) => {
    test.each(['js', 'cjs'])('every exported class is named as it is exported (.%s)', async (extension) => {
      const url = new URL(`${entry}.${extension}`, dist);
      const module = extension === 'js' ? await import(url.href) : require(url.pathname);
      const classes = Object.entries(module as Record<string, unknown>).filter(([, value]) => isClass(value));
      expect(classes.length).toBeGreaterThan(0);
      for (const [exported, value] of classes) expect({ exported, name: (value as { name: string }).name }).toEqual({ exported, name: exported });
    });
  });

  test('a Client and an APIError say their names in util.inspect and in their stack', async () => {
    const { Client, APIError, NotFoundError } = await import(new URL('index.node.js', dist).href);
    const client = new Client({ apiKey: 'vdr_test', baseUrl: 'https://svc.test' });
    expect(client.constructor.name).toBe('Client');
    expect(inspect(client)).toMatch(/^Client \{/);

    // APIError.generate picks the subclass by status: its own frame names the class.
    const error = APIError.generate({ status: 404, body: { error: 'no' }, headers: new Headers(), method: 'GET', url: 'https://svc.test/api/v1/rooms/9' });
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.stack).toMatch(/^NotFoundError: GET \/api\/v1\/rooms\/9 failed with 404/);
    expect(error.stack).toMatch(/at (new )?APIError\.generate /);
    expect(inspect(error)).toMatch(/^NotFoundError: /);
  });

  test('the source maps ship in dist/ and map stack frames to src/', () => {
    const maps = readdirSync(dist).filter((file) => /\.c?js$/.test(file)).map((file) => {
      const code = readFileSync(new URL(file, dist), 'utf8');
      expect(code, file).toMatch(new RegExp(`//# sourceMappingURL=${file.replace(/\./g, '\\.')}\\.map\\n?$`));
      return JSON.parse(readFileSync(new URL(`${file}.map`, dist), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
    });
    // Without the sources' text (tsup.config.ts says why): the maps give files and lines.
    for (const map of maps) expect(map.sourcesContent).toBeUndefined();
    expect(maps.flatMap((map) => map.sources)).toContain('../src/core/errors.ts');

    // A request answered 404, in a process with source maps on: the SDK's frames point at src/.
    const script = `
      import { Client } from ${JSON.stringify(new URL('index.node.js', dist).href)};
      const fetch = async () => new Response(JSON.stringify({ error: 'room 9 not found' }), { status: 404, headers: { 'content-type': 'application/json' } });
      const client = new Client({ apiKey: 'vdr_test', baseUrl: 'https://svc.test', fetch, maxRetries: 0 });
      try { await client.search.query(9, { query: 'q' }); } catch (error) { console.log(error.stack); }
    `;
    const run = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^NotFoundError: POST \/api\/v1\/rooms\/9\/search failed with 404/);
    expect(run.stdout).toMatch(/\(.*\/src\/core\/errors\.ts:\d+:\d+\)/);
    expect(run.stdout).not.toMatch(/dist\/chunk-/);
  });
});
