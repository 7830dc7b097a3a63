import { execFile, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// A dispatcher must come from the undici major the runtime's fetch is built on. The installed undici is 7
// (Node 24's): under Node 22 (undici 6) the same Client is refused with UndiciMismatchError, under Node 24 not.
const root = fileURLToPath(new URL('../..', import.meta.url));
const node22 = spawnSync('npx', ['-y', '-p', 'node@22', 'node', '-p', 'process.execPath'], { encoding: 'utf8', timeout: 120_000 });
const NODE_22 = node22.status === 0 ? node22.stdout.trim() : undefined;
if (!NODE_22 && process.env.CI === 'true') throw new Error(`npx -p node@22 failed, and CI=true requires it: ${node22.stderr}`);

async function runUnder(node: string): Promise<{ node: string; undici: string; name: string; mismatch: boolean; message: string }> {
  const script = join(root, `.tmp-bundle-mismatch-${process.pid}.mjs`);
  try {
    await build({ entryPoints: [join(root, 'test/network/mismatch-process.ts')], bundle: true, platform: 'node', format: 'esm', outfile: script, external: ['undici'], logLevel: 'error' });
    const { stdout } = await promisify(execFile)(node, [script], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    return JSON.parse(stdout);
  } finally {
    rmSync(script, { force: true });
  }
}

describe('a dispatcher of another undici major than the runtime\'s fetch', () => {
  it.skipIf(!NODE_22)('is refused under Node 22 (undici 6) with UndiciMismatchError, naming both versions and the fix', async () => {
    const run = await runUnder(NODE_22!);
    expect(run.node).toMatch(/^v22\./);
    expect(run).toMatchObject({ name: 'UndiciMismatchError', mismatch: true });
    expect(run.message).toMatch(/^\[svc-sdk\] the dispatcher comes from undici 7\.\d+\.\d+, but this runtime's fetch is built on undici 6\.\d+\.\d+: .*Install undici@6/);
  }, 180_000);

  it('is taken under Node 24 (undici 7): the call fails only as the unreachable port does', async () => {
    const run = await runUnder(process.execPath);
    expect(run.undici).toMatch(/^7\./);
    expect(run).toMatchObject({ name: 'APIConnectionError', mismatch: false });
  }, 60_000);

  if (!NODE_22) it.skip('skipped: Node 22 through npx -p node@22 (needs the npm registry once)', () => {});
});
