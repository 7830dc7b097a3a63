import { execFile, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportMissing, scratch, selfSigned, startOrigin, tools } from './proxies.js';

// The ca option on a Node before 22.15, which has no tls.getCACertificates (trusted-certificates.test.ts compares the
// lists in process): NODE_EXTRA_CA_CERTS is still trusted beside the option's certificates, and ca: 'system', which
// that Node cannot read, is refused with the way round. Over TLS, on a real Node 22.14 (npx -p node@22.14).
const root = fileURLToPath(new URL('../..', import.meta.url));
const found = spawnSync('npx', ['-y', '-p', 'node@22.14', 'node', '-p', 'process.execPath'], { encoding: 'utf8', timeout: 120_000 });
const NODE_22_14 = found.status === 0 ? found.stdout.trim() : undefined;
if (!NODE_22_14 && process.env.CI === 'true') throw new Error(`npx -p node@22.14 failed, and CI=true requires it: ${found.stderr}`);

reportMissing('openssl');
if (!NODE_22_14) it.skip('skipped: Node 22.14 through npx -p node@22.14 (needs the npm registry once)', () => {});

describe.skipIf(!NODE_22_14 || !tools.openssl)('the ca option under Node 22.14 (no tls.getCACertificates)', () => {
  const work = scratch('svc-old-node-');
  // A second self-signed certificate, in a folder of its own (selfSigned writes fixed file names): the ca option's, which signs nothing.
  const other = scratch('svc-old-node-other-');
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  let originCert: string;
  let otherCa: string;
  beforeAll(async () => {
    const made = selfSigned(work.dir);
    originCert = made.certFile;
    origin = await startOrigin(made);
    otherCa = selfSigned(other.dir).cert;
  });
  afterAll(async () => {
    await origin?.close();
    work.remove();
    other.remove();
  });

  it("trusts NODE_EXTRA_CA_CERTS beside the ca option's certificate, and refuses ca: 'system' naming the Node it needs", async () => {
    const script = join(root, `.tmp-bundle-old-node-${process.pid}.mjs`);
    try {
      await build({ entryPoints: [join(root, 'test/network/old-node-process.ts')], bundle: true, platform: 'node', format: 'esm', outfile: script, external: ['undici'], logLevel: 'error' });
      const env = { ...process.env, NODE_EXTRA_CA_CERTS: originCert, BASE_URL: origin.url, OTHER_CA: otherCa };
      const { stdout } = await promisify(execFile)(NODE_22_14!, [script], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
      const run = JSON.parse(stdout);
      expect(run.node).toBe('v22.14.0');
      expect(run.caOption).toEqual({ hooks: 3 });
      expect(run.system).toEqual({ name: 'SvcError', message: expect.stringMatching(/^\[svc-sdk\] ca: 'system' needs Node 22\.15 or newer/) });
    } finally {
      rmSync(script, { force: true });
    }
  }, 180_000);
});
