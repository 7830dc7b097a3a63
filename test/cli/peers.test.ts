// The built library in a consumer project that lacks the emulator's optional peers: importing
// svc-sdk/testing says so in one line naming the install command. (`svc-sdk emulator` is
// @svc-sdk/cli's, which depends on them: test/release/registry.test.ts runs it from a registry.)
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode, type Run } from './support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(path.join(ROOT, 'dist/testing.js')) && existsSync(path.join(ROOT, 'dist/testing.cjs'));
if (!built) console.warn('[svc-sdk] skipping the missing-peer tests: dist/ is missing; run "npm run build" first (npm test does)');

const ALL = 'npm install -D msw @hono/node-server minisearch';
const IMPORT_LINE = `[svc-sdk] svc-sdk/testing needs msw (an optional peer dependency, not installed): ${ALL}`;

/** Runs node (the one running the tests) in `cwd`. */
function node(cwd: string, args: string[]): Promise<Run> {
  return runNode(args, { cwd, env: { ...process.env, NODE_OPTIONS: '' } });
}

/** A consumer project with the built package (copied, so that node_modules lookups start in the project) and `peers` linked in. */
function consumer(base: string, name: string, peers: string[]): string {
  const dir = path.join(base, name);
  const pkg = path.join(dir, 'node_modules', 'svc-sdk');
  mkdirSync(pkg, { recursive: true });
  cpSync(path.join(ROOT, 'dist'), path.join(pkg, 'dist'), { recursive: true });
  cpSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'));
  for (const peer of peers) {
    mkdirSync(path.dirname(path.join(dir, 'node_modules', peer)), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', peer), path.join(dir, 'node_modules', peer), 'dir');
  }
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  return dir;
}

const NO_FRAMES = /^\s+at /m;

describe.skipIf(!built)('the built package without the emulator\'s optional peers', () => {
  let base: string;
  let bare: string;
  let mswOnly: string;

  beforeAll(() => {
    base = mkdtempSync(path.join(tmpdir(), 'svc-sdk-peers-'));
    bare = consumer(base, 'bare', []);
    mswOnly = consumer(base, 'msw-only', ['msw']);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('import \'svc-sdk/testing\' (ESM) throws an error whose message is the one line naming the install command', async () => {
    const caught = await node(bare, [
      '--input-type=module',
      '-e',
      "try { await import('svc-sdk/testing') } catch (error) { console.log(JSON.stringify({ name: error.name, message: error.message })) }",
    ]);
    expect(JSON.parse(caught.stdout)).toEqual({ name: 'MissingPeerError', message: IMPORT_LINE });

    // Uncaught, Node prints it: the line, and no stack frames under it.
    const uncaught = await node(bare, ['--input-type=module', '-e', "import 'svc-sdk/testing';"]);
    expect(uncaught.code).toBe(1);
    expect(uncaught.stderr).toContain(IMPORT_LINE);
    expect(uncaught.stderr).not.toMatch(NO_FRAMES);
    expect(uncaught.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
  });

  it('require(\'svc-sdk/testing\') (CJS) throws the same line', async () => {
    const caught = await node(bare, ['-e', "try { require('svc-sdk/testing') } catch (error) { console.log(error.message) }"]);
    expect(caught.stdout.trim()).toBe(IMPORT_LINE);
  });

  it.each(['esm', 'cjs'])('with msw alone (%s): the emulator answers; search and listen() name their own peer', async (format) => {
    const script = `
      const { createEmulator } = ${format === 'esm' ? "await import('svc-sdk/testing')" : "require('svc-sdk/testing')"};
      const emulator = createEmulator();
      const call = (path, body) => emulator.fetch('https://svc.test/api/v1' + path, {
        method: 'POST', headers: { authorization: 'Bearer vdr_x', 'content-type': 'application/json' }, body: JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
      const room = await call('/rooms', { name: 'R', room_type: 'x' });
      const search = await call('/rooms/1/search', { query: 'risk' });
      const listen = await emulator.listen(0).then(() => 'listening', (error) => error.message);
      console.log(JSON.stringify({ room: room.status, search, listen }));
    `;
    const run =
      format === 'esm'
        ? await node(mswOnly, ['--input-type=module', '-e', script])
        : await node(mswOnly, ['--input-type=commonjs', '-e', `(async () => { ${script} })()`]);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      room: 201,
      search: { status: 500, body: { error: "[svc-sdk] the emulator's search needs minisearch (an optional peer dependency, not installed): npm install -D minisearch" } },
      listen: '[svc-sdk] emulator.listen() needs @hono/node-server (an optional peer dependency, not installed): npm install -D @hono/node-server',
    });
  });
});
