import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, Client, ValidationError } from '../../src/index.node.js';
import { reportMissing, scratch, selfSigned, startMitmproxy, startOrigin, startSquid, startTinyproxy, tools, type RunningProxy } from './proxies.js';

const API_KEY = 'vdr_proxy_test';
const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs test/network/env-process.ts (bundled from the sources) in a Node process started with `env`; resolves with what it printed. */
async function runWithEnv(env: Record<string, string>): Promise<unknown> {
  const work = scratch('svc-env-process-');
  try {
    const script = join(root, `.tmp-bundle-env-${process.pid}.mjs`);
    await build({ entryPoints: [join(root, 'test/network/env-process.ts')], bundle: true, platform: 'node', format: 'esm', outfile: script, external: ['undici'], logLevel: 'error' });
    return await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk));
      child.on('exit', (code) => {
        void import('node:fs').then(({ rmSync }) => rmSync(script, { force: true }));
        if (code === 0) resolve(JSON.parse(out));
        else reject(new Error(`the process exited with ${code}: ${err}${out}`));
      });
    });
  } finally {
    work.remove();
  }
}

reportMissing('openssl', 'tinyproxy', 'squid', 'mitmdump');

describe.skipIf(!tools.openssl)('proxies and trust, with real proxies on loopback', () => {
  const work = scratch('svc-proxies-');
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  let cert: string;
  beforeAll(async () => {
    const made = selfSigned(work.dir);
    cert = made.cert;
    origin = await startOrigin(made);
  });
  afterAll(async () => {
    await origin?.close();
    work.remove();
  });

  it('without the ca option, the self-signed origin is refused, and the error names the route and the trust', async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: origin.url, proxy: false, ca: 'system', maxRetries: 0 });
    const error = await client.webhooks.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(/ \((?:DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\) \(route: direct; trust: the system store besides Node's bundled CAs[^;]*\)$/);
  });

  describe.skipIf(!tools.tinyproxy)('tinyproxy (CONNECT)', () => {
    let proxy: RunningProxy;
    beforeAll(async () => void (proxy = await startTinyproxy(work.dir)));
    afterAll(() => proxy?.stop());

    it('a paginated list and an upload go through the proxy, trusting the origin through ca', async () => {
      const client = new Client({ apiKey: API_KEY, baseUrl: origin.url, proxy: proxy.url, ca: cert });
      const before = origin.requests.length;
      const hooks = await client.webhooks.list();
      expect(hooks.map((hook) => hook.id)).toEqual([1, 2, 3]);
      const uploaded = await client.documents.upload(1, new File(['hello through a proxy'], 'a.txt'));
      expect(uploaded).toMatchObject({ id: 1 });
      expect(origin.requests.slice(before).map((line) => line.split('?')[0])).toEqual([
        'GET /api/v1/webhooks/',
        'GET /api/v1/webhooks/',
        'GET /api/v1/webhooks/',
        'POST /api/v1/rooms/1/documents',
      ]);
      // The proxy tunnelled them: its log has the CONNECTs to the origin's port.
      expect(proxy.log()).toMatch(new RegExp(`CONNECT 127\\.0\\.0\\.1:${new URL(origin.url).port}`));
    });

    it('HTTPS_PROXY from the environment is honoured by default, and proxy: false goes direct', async () => {
      const env = { ...process.env, HTTPS_PROXY: proxy.url };
      const saved = process.env;
      process.env = env;
      try {
        const client = new Client({ apiKey: API_KEY, baseUrl: origin.url, ca: cert });
        const connects = () => (proxy.log().match(/CONNECT 127\.0\.0\.1/g) ?? []).length;
        const before = connects();
        await client.webhooks.list();
        expect(connects()).toBeGreaterThan(before);
        const direct = new Client({ apiKey: API_KEY, baseUrl: origin.url, ca: cert, proxy: false });
        const after = connects();
        await direct.webhooks.list();
        expect(connects()).toBe(after);
      } finally {
        process.env = saved;
      }
    });

    it('a proxy that is not there: the error names the route, never a password', async () => {
      const client = new Client({ apiKey: API_KEY, baseUrl: origin.url, proxy: 'http://user:s3cret-pass@127.0.0.1:9', ca: cert, maxRetries: 0 });
      const error = await client.webhooks.list().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).message).toContain('route: through the proxy http://[redacted]@127.0.0.1:9; trust: the ca option (1 certificate)');
      expect((error as Error).message).not.toContain('s3cret');
    });
  });

  describe.skipIf(!tools.squid)('squid with proxy authentication (basic, ncsa)', () => {
    let proxy: RunningProxy;
    beforeAll(async () => void (proxy = await startSquid(work.dir, 'fund', 'pa55-word')), 30_000);
    afterAll(() => proxy?.stop());

    it('the credentials in the proxy URL authenticate; wrong ones are refused, unquoted', async () => {
      const target = new URL(proxy.url);
      const client = new Client({ apiKey: API_KEY, baseUrl: origin.url, proxy: `http://fund:pa55-word@${target.host}`, ca: cert });
      expect(await client.webhooks.list()).toHaveLength(3);
      const wrong = new Client({ apiKey: API_KEY, baseUrl: origin.url, proxy: `http://fund:not-it@${target.host}`, ca: cert, maxRetries: 0 });
      const error = await wrong.webhooks.list().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).message).toContain(`route: through the proxy http://[redacted]@${target.host}`);
      expect((error as Error).message).not.toContain('not-it');
    }, 30_000);
  });

  describe.skipIf(!tools.mitmdump)('mitmproxy intercepting TLS with its own CA', () => {
    let proxy: Awaited<ReturnType<typeof startMitmproxy>>;
    beforeAll(async () => void (proxy = await startMitmproxy(work.dir)), 30_000);
    afterAll(() => proxy?.stop());

    it('trusted through ca: the call goes through the interception', async () => {
      const client = new Client({ apiKey: API_KEY, baseUrl: origin.url, proxy: proxy.url, ca: readFileSync(proxy.caFile, 'utf8') });
      expect(await client.webhooks.list()).toHaveLength(3);
    });

    it("refused without ca or NODE_EXTRA_CA_CERTS naming its CA: a TLS error naming the proxy and Node's bundled CAs", async () => {
      const client = new Client({ apiKey: API_KEY, baseUrl: origin.url, proxy: proxy.url, maxRetries: 0 });
      const error = await client.webhooks.list().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIConnectionError);
      const route = `route: through the proxy ${proxy.url}; trust: Node's bundled CAs`;
      expect((error as Error).message).toMatch(/ \((?:UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\) \(route: /);
      expect((error as Error).message).toContain(route);
    });

    it('trusted through NODE_EXTRA_CA_CERTS (a process started with it): the call goes through the interception', async () => {
      const run = await runWithEnv({ NODE_EXTRA_CA_CERTS: proxy.caFile, HTTPS_PROXY: proxy.url, BASE_URL: origin.url });
      expect(run).toEqual({ hooks: 3 });
    }, 30_000);
  });

  it.each([
    [{ proxy: 'socks://127.0.0.1:1080' }, 'proxy must be an http(s) URL such as http://proxy.example:3128, or false for no proxy'],
    [{ ca: 'not a pem' }, "ca must be PEM text (-----BEGIN CERTIFICATE-----…), an array of them, or 'system'"],
    [{ cert: '-----BEGIN CERTIFICATE-----' }, 'cert and key go together: pass both for mutual TLS'],
    [{ dispatcher: {} }, 'dispatcher must be an undici Dispatcher (an Agent, ProxyAgent, …)'],
  ])('new Client(%j) is a ValidationError naming the field', (options, message) => {
    expect(() => new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', ...options })).toThrow(ValidationError);
    expect(() => new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', ...options })).toThrow(message);
  });
});
