// Issue 45's promise on each supported Node: every operation of the table, a paginated list and a
// streamed upload go through a real proxy (tinyproxy, CONNECT) to a TLS origin trusted through `ca`,
// in Node 22, 24 and 26 (the other two through `npx -p node@N`, as the runtime matrix gets them).
// The origin is the emulator served over HTTPS by this process; the calls run in a child process
// bundled from the sources (test/network/every-operation-process.ts).
import { execFile, spawnSync } from 'node:child_process';
import { createServer } from 'node:https';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/operations.js';
import { createEmulator } from '../../src/testing/index.js';
import { reportMissing, scratch, selfSigned, startTinyproxy, tools, type RunningProxy } from './proxies.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The upload's size: 8 MiB here; the 1 GiB proof is test/network/streamed-upload's. */
const UPLOAD_BYTES = 8 * 1024 * 1024;

/** The `node` binary of the major `major` through npx (cached by npm after the first run), or undefined. */
function nodeOf(major: string): string | undefined {
  const found = spawnSync('npx', ['-y', '-p', `node@${major}`, 'node', '-p', 'process.execPath'], { encoding: 'utf8', timeout: 180_000 });
  if (found.status === 0) return found.stdout.trim();
  if (process.env.CI === 'true') throw new Error(`npx -p node@${major} failed, and CI=true requires it: ${found.stderr}`);
  return undefined;
}

reportMissing('openssl', 'tinyproxy');

describe.skipIf(!tools.openssl || !tools.tinyproxy)('every operation through a proxy (tinyproxy, CONNECT), in Node 22, 24 and 26', () => {
  const work = scratch('svc-every-op-');
  const script = join(root, `.tmp-bundle-every-op-${process.pid}.mjs`);
  const seen: string[] = [];
  let proxy: RunningProxy;
  let origin: ServerType;
  let baseUrl: string;
  let caFile: string;
  /** The service of the run under way: a fresh one each, so that each lists its own 5 webhooks. */
  let emulator = createEmulator();
  beforeAll(async () => {
    const tls = selfSigned(work.dir);
    caFile = tls.certFile;
    const fetch = (request: Request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      return emulator.fetch(request);
    };
    await new Promise<void>((resolve) => {
      origin = serve({ fetch, port: 0, hostname: '127.0.0.1', createServer, serverOptions: { key: tls.key, cert: tls.cert } }, (info) => {
        baseUrl = `https://127.0.0.1:${info.port}`;
        resolve();
      });
    });
    proxy = await startTinyproxy(work.dir);
    await build({ entryPoints: [join(root, 'test/network/every-operation-process.ts')], bundle: true, platform: 'node', format: 'esm', outfile: script, external: ['undici'], logLevel: 'error' });
  }, 60_000);
  afterAll(async () => {
    await proxy?.stop();
    await new Promise((resolve) => origin?.close(resolve));
    rmSync(script, { force: true });
    work.remove();
  });

  const majors: Array<[string, () => string | undefined]> = [
    ['22', () => nodeOf('22')],
    ['24', () => process.execPath],
    ['26', () => nodeOf('26')],
  ];
  it.each(majors)('Node %s: each of the table\'s operations answers through the proxy, the list pages and the upload streamed', async (major, binary) => {
    const node = binary();
    if (!node) return void console.warn(`skipped: Node ${major} through npx -p node@${major} (needs the npm registry once)`);
    emulator = createEmulator({ pageSize: 2, deliveryDelayMs: 0 });
    const connectsBefore = (proxy.log().match(/CONNECT/g) ?? []).length;
    const requestsBefore = seen.length;
    const { stdout } = await promisify(execFile)(node, [script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, BASE_URL: baseUrl, PROXY_URL: proxy.url, ORIGIN_CA: caFile, UPLOAD_BYTES: String(UPLOAD_BYTES), NODE_EXTRA_CA_CERTS: '', HTTPS_PROXY: '', HTTP_PROXY: '', NO_PROXY: '' },
    });
    const run = JSON.parse(stdout) as { node: string; called: string[]; listed: number; uploaded: number };
    expect(run.node).toMatch(new RegExp(`^v${major}\\.`));
    expect(run.called.sort()).toEqual(Object.keys(operations).sort());
    expect(run.listed).toBe(5);
    expect(run.uploaded).toBe(UPLOAD_BYTES);
    // The origin heard each operation's method and path (the 3 pages of webhooks among them).
    const heard = seen.slice(requestsBefore);
    for (const entry of Object.values(operations)) {
      const path = new RegExp(`^${entry.method} /\\S*${entry.path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '\\d+')}$`);
      expect(heard.some((line) => path.test(line)), `${entry.name}: ${entry.method} ${entry.path}`).toBe(true);
    }
    expect(heard.filter((line) => /^GET \S*\/webhooks\/$/.test(line))).toHaveLength(3);
    expect((proxy.log().match(/CONNECT/g) ?? []).length).toBeGreaterThan(connectsBefore);
  }, 300_000);
});
