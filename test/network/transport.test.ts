import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { APIConnectionError, Client, UndiciMismatchError, ValidationError } from '../../src/index.node.js';
import { resolveNetwork } from '../../src/internal.js';
import { useRuntime } from '../support/runtime.js';
import { freePort } from '../webhooks/redis-server.js';
import { reportMissing, scratch, selfSigned, startOrigin, startTinyproxy, tools, type RunningProxy } from './proxies.js';

// The transport as a caller sees it: the words a connect failure names its route and trust with, for
// every option and environment that sets them (a refused port on loopback: no proxy needed), which
// settings make no transport at all, the proxies and route resolveNetwork lists for a tool, the options refused, and, with tinyproxy, that a client's calls
// share their tunnels (keep-alive through the proxy) rather than opening one CONNECT each.

const API_KEY = 'vdr_transport_test';
// The undici the SDK loads (the root's): test/node_modules holds another copy, whose dispatchers the SDK cannot check.
const sdkRequire = createRequire(new URL('../../src/core/transport-node.ts', import.meta.url));
const { Agent } = sdkRequire('undici') as typeof import('undici');
const otherUndici = createRequire(import.meta.url).resolve('undici') !== sdkRequire.resolve('undici');
const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'no_proxy', 'NO_PROXY', 'NODE_USE_ENV_PROXY', 'NODE_EXTRA_CA_CERTS'];

const work = scratch('svc-transport-');
const pem = selfSigned(work.dir);
let closed: number;
let closedProxy: number;
beforeAll(async () => {
  closed = await freePort();
  closedProxy = await freePort();
});
afterAll(() => work.remove());
// Each test sets the proxy variables it means; none leaks from the machine's environment or to the next test.
function environment(values: Record<string, string>): void {
  for (const name of PROXY_VARIABLES) vi.stubEnv(name, undefined);
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
}
afterEach(() => void vi.unstubAllEnvs());

/** The message of the APIConnectionError a call of `options` fails with, against a port nobody listens on. */
async function failure(options: Record<string, unknown>): Promise<string> {
  const client = new Client({ apiKey: API_KEY, baseUrl: `https://127.0.0.1:${closed}`, maxRetries: 0, ...options });
  const error = await client.webhooks.list().then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(APIConnectionError);
  return (error as Error).message;
}

describe('the route and trust a connect failure names', () => {
  it.each([
    ['a user name only', (port: number) => `http://fund@127.0.0.1:${port}`],
    ['a password only', (port: number) => `http://:pa55@127.0.0.1:${port}`],
  ])('a proxy URL with %s is shown redacted', async (_, url) => {
    environment({});
    const message = await failure({ proxy: url(closedProxy) });
    expect(message).toContain(`(route: through the proxy http://[redacted]@127.0.0.1:${closedProxy}; trust: Node's bundled CAs)`);
    expect(message).not.toMatch(/fund|pa55/);
  });

  it('a proxy URL without credentials is shown as it is; an https proxy keeps its scheme', async () => {
    environment({});
    expect(await failure({ proxy: `http://127.0.0.1:${closedProxy}` })).toContain(`(route: through the proxy http://127.0.0.1:${closedProxy}; trust: Node's bundled CAs)`);
    expect(await failure({ proxy: `https://127.0.0.1:${closedProxy}` })).toContain(`(route: through the proxy https://127.0.0.1:${closedProxy}; trust: Node's bundled CAs)`);
  });

  it('ca (one, then two certificates), cert and key, and NODE_EXTRA_CA_CERTS are each named; direct when no proxy is set', async () => {
    environment({ NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem' });
    expect(await failure({ ca: pem.cert })).toContain("(route: direct; trust: the ca option (1 certificate) besides Node's bundled CAs and NODE_EXTRA_CA_CERTS (/etc/corp/ca.pem))");
    expect(await failure({ ca: [pem.cert, pem.cert] })).toContain("(route: direct; trust: the ca option (2 certificates) besides Node's bundled CAs and NODE_EXTRA_CA_CERTS (/etc/corp/ca.pem))");
    expect(await failure({ cert: pem.cert, key: pem.key })).toContain("(route: direct; trust: Node's bundled CAs and NODE_EXTRA_CA_CERTS (/etc/corp/ca.pem), presenting the cert option)");
    expect(await failure({ ca: 'system', cert: pem.cert, key: pem.key })).toContain(
      "(route: direct; trust: the system store besides Node's bundled CAs and NODE_EXTRA_CA_CERTS (/etc/corp/ca.pem), presenting the cert option)",
    );
  });

  it('the environment\'s proxies: every variable set is named, lower case first, credentials redacted, with NO_PROXY (no_proxy first)', async () => {
    environment({
      HTTPS_PROXY: `http://user:s3cret@127.0.0.1:${closedProxy}`,
      http_proxy: `http://127.0.0.1:${closedProxy}`,
      no_proxy: 'example.com',
      NO_PROXY: 'other.example',
    });
    const message = await failure({});
    expect(message).toContain(`(route: through HTTPS_PROXY http://[redacted]@127.0.0.1:${closedProxy}, http_proxy http://127.0.0.1:${closedProxy} (NO_PROXY: example.com); trust: Node's bundled CAs)`);
    expect(message).not.toContain('s3cret');
    environment({ https_proxy: `http://127.0.0.1:${closedProxy}`, HTTP_PROXY: `http://127.0.0.1:${closedProxy}`, NO_PROXY: 'other.example' });
    expect(await failure({})).toContain(`(route: through https_proxy http://127.0.0.1:${closedProxy}, HTTP_PROXY http://127.0.0.1:${closedProxy} (NO_PROXY: other.example); trust:`);
    environment({ HTTP_PROXY: `http://127.0.0.1:${closedProxy}` });
    expect(await failure({})).toContain(`(route: through HTTP_PROXY http://127.0.0.1:${closedProxy}; trust: Node's bundled CAs)`);
  });

  it('the proxy option wins over the environment\'s', async () => {
    environment({ HTTPS_PROXY: 'http://127.0.0.1:1' });
    expect(await failure({ proxy: `http://127.0.0.1:${closedProxy}` })).toContain(`(route: through the proxy http://127.0.0.1:${closedProxy}; trust:`);
  });

  it('no option and no proxy variable: the runtime\'s fetch as it is, and its words alone', async () => {
    environment({ NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem' });
    expect(await failure({})).not.toContain('route:');
    // NODE_USE_ENV_PROXY without a proxy variable routes nothing.
    environment({ NODE_USE_ENV_PROXY: '1' });
    expect(await failure({})).not.toContain('route:');
  });

  it.each([
    ['NODE_USE_ENV_PROXY=1', { NODE_USE_ENV_PROXY: '1' }, []],
    ['--use-env-proxy', {}, ['--use-env-proxy']],
  ])('where Node routes fetch itself (%s), the SDK adds no dispatcher and names Node\'s route', async (_, flag, execArgv) => {
    environment({ ...flag, HTTPS_PROXY: `http://127.0.0.1:${closedProxy}`, NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem' });
    const saved = process.execArgv;
    process.execArgv = [...saved, ...execArgv];
    try {
      // This process was not started with either, so Node's fetch goes straight to the closed port: the SDK's words show whose route it took.
      expect(await failure({})).toContain("(route: through the environment's proxy (Node's NODE_USE_ENV_PROXY); trust: Node's bundled CAs and NODE_EXTRA_CA_CERTS (/etc/corp/ca.pem))");
      environment({ ...flag, HTTPS_PROXY: `http://127.0.0.1:${closedProxy}` });
      expect(await failure({})).toContain("(route: through the environment's proxy (Node's NODE_USE_ENV_PROXY); trust: Node's bundled CAs)");
      // proxy: false must then go direct on a dispatcher of its own; ca needs one, and takes the environment's proxy itself.
      expect(await failure({ proxy: false })).toContain("(route: direct; trust: Node's bundled CAs)");
      expect(await failure({ ca: pem.cert })).toContain(`(route: through HTTPS_PROXY http://127.0.0.1:${closedProxy}; trust: the ca option (1 certificate)`);
    } finally {
      process.execArgv = saved;
    }
  });

  // Measured with NODE_USE_ENV_PROXY=1 and a closed HTTP_PROXY: Node 22.14, 22.20 and 23.11 fetched the origin direct; 22.21, 24.0 and 24.21 did not.
  it.each([
    ['22.14.0', false],
    ['22.20.0', false],
    ['22.21.0', true],
    ['23.11.0', false],
    ['24.0.0', true],
    ['26.1.0', true],
    [undefined, false],
  ])('NODE_USE_ENV_PROXY=1 under Node %s: Node routes fetch itself (%s), else the SDK takes HTTPS_PROXY on a dispatcher of its own', async (node, nodeRoutes) => {
    environment({ NODE_USE_ENV_PROXY: '1', HTTPS_PROXY: `http://127.0.0.1:${closedProxy}` });
    useRuntime({ node });
    expect(await failure({})).toContain(
      nodeRoutes ? "(route: through the environment's proxy (Node's NODE_USE_ENV_PROXY);" : `(route: through HTTPS_PROXY http://127.0.0.1:${closedProxy}; trust:`,
    );
  });

  it('proxy: false where nothing routes fetch: no transport, the runtime\'s words alone', async () => {
    environment({ HTTPS_PROXY: `http://127.0.0.1:${closedProxy}` });
    expect(await failure({ proxy: false })).not.toContain('route:');
  });

  it('off Node\'s fetch, a client without transport options names no route', async () => {
    environment({ NODE_USE_ENV_PROXY: '1', HTTPS_PROXY: `http://127.0.0.1:${closedProxy}` });
    useRuntime({ nodeFetch: false });
    expect(await failure({})).not.toContain('route:');
  });
});

describe('resolveNetwork(options, env): the proxies and route a tool reads (svc-sdk doctor)', () => {
  const proxied = { HTTPS_PROXY: 'http://corp:s3cret@proxy.example:3128' };
  it.each([
    ['no option, no variable', {}, {}, []],
    ['the proxy option, with credentials', { proxy: 'http://corp:s3cret@proxy.example:3128' }, {}, [{ source: 'the proxy option', shown: 'http://[redacted]@proxy.example:3128', host: 'proxy.example:3128' }]],
    ['the proxy option over a variable', { proxy: 'http://proxy.example:3128' }, proxied, [{ source: 'the proxy option', shown: 'http://proxy.example:3128', host: 'proxy.example:3128' }]],
    ['an http:// proxy without a port', { proxy: 'http://proxy.example' }, {}, [{ source: 'the proxy option', shown: 'http://proxy.example', host: 'proxy.example:80' }]],
    ['an https:// proxy without a port', { proxy: 'https://proxy.example' }, {}, [{ source: 'the proxy option', shown: 'https://proxy.example', host: 'proxy.example:443' }]],
    ['proxy: false', { proxy: false as const }, proxied, []],
    ['a dispatcher of the caller\'s', { dispatcher: new Agent() }, proxied, []],
    ['every variable, lower case first, an empty one left out', {}, { https_proxy: 'http://a.example:1', HTTPS_PROXY: 'http://b.example:2', http_proxy: '', HTTP_PROXY: 'http://d.example:4' }, [
      { source: 'https_proxy', shown: 'http://a.example:1', host: 'a.example:1' },
      { source: 'HTTPS_PROXY', shown: 'http://b.example:2', host: 'b.example:2' },
      { source: 'HTTP_PROXY', shown: 'http://d.example:4', host: 'd.example:4' },
    ]],
  ])('%s: its proxies', async (_, options, env, proxies) => {
    const network = await resolveNetwork(options, env);
    try {
      expect(network.proxies).toEqual(proxies);
    } finally {
      await network.close();
    }
  });

  it.each([
    ['no variable', {}, 'direct', []],
    ['NODE_USE_ENV_PROXY=1 without a proxy variable', { NODE_USE_ENV_PROXY: '1' }, 'direct', []],
    ['NODE_USE_ENV_PROXY=1 with HTTPS_PROXY, where Node reads it', { NODE_USE_ENV_PROXY: '1', ...proxied }, "through the environment's proxy (Node's NODE_USE_ENV_PROXY)", [
      { source: 'HTTPS_PROXY', shown: 'http://[redacted]@proxy.example:3128', host: 'proxy.example:3128' },
    ]],
  ])('no option, %s: the route is %s', async (_, env, route, proxies) => {
    useRuntime({ node: '24.0.0' });
    const network = await resolveNetwork({}, env);
    try {
      expect(network.route).toBe(route);
      expect(network.proxies).toEqual(proxies);
    } finally {
      await network.close();
    }
  });
});

describe("the environment's proxies carry the calls", () => {
  /** Whether a GET of `http://127.0.0.1:<origin>` succeeds: the origin answers; the proxies set point at a closed port. */
  async function reaches(values: Record<string, string>): Promise<boolean> {
    environment(values);
    const origin = createServer((_, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"data":[]}'));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    try {
      const client = new Client({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${(origin.address() as AddressInfo).port}`, maxRetries: 0 });
      return await client.request({ method: 'GET', path: '/rooms' }).then(() => true, () => false);
    } finally {
      await new Promise((resolve) => origin.close(resolve));
    }
  }

  it('an http:// call goes through http_proxy, or HTTP_PROXY, unless NO_PROXY (or no_proxy) names its host', async () => {
    expect(await reaches({})).toBe(true);
    expect(await reaches({ http_proxy: `http://127.0.0.1:${closedProxy}` })).toBe(false);
    expect(await reaches({ HTTP_PROXY: `http://127.0.0.1:${closedProxy}` })).toBe(false);
    expect(await reaches({ HTTP_PROXY: `http://127.0.0.1:${closedProxy}`, NO_PROXY: '127.0.0.1' })).toBe(true);
    expect(await reaches({ http_proxy: `http://127.0.0.1:${closedProxy}`, no_proxy: '127.0.0.1' })).toBe(true);
  });
});

describe('a dispatcher of the caller\'s', () => {
  it('of the runtime\'s undici major is taken, and named as the route', async () => {
    environment({});
    expect(await failure({ dispatcher: new Agent() })).toContain('(route: through the dispatcher option; trust: what the dispatcher option trusts)');
  });

  it('of the installed undici, under a runtime whose fetch is another major, is refused naming both versions', async () => {
    environment({});
    useRuntime({ undici: '6.21.3' });
    const client = new Client({ apiKey: API_KEY, baseUrl: `https://127.0.0.1:${closed}`, maxRetries: 0, dispatcher: new Agent() });
    const error = await client.webhooks.list().then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(UndiciMismatchError);
    expect((error as Error).message).toMatch(
      /^\[svc-sdk\] the dispatcher comes from undici 7\.\d+\.\d+, but this runtime's fetch is built on undici 6\.21\.3: their internals differ, so it is refused\. Install undici@6, or pass proxy \/ ca \/ cert instead/,
    );
  });

  it.skipIf(!otherUndici)('of another copy of undici than the one the SDK loads (test/node_modules\'), is taken as given, whatever the runtime', async () => {
    environment({});
    useRuntime({ undici: '6.21.3' });
    const { Agent: OtherAgent } = createRequire(import.meta.url)('undici') as typeof import('undici');
    expect(await failure({ dispatcher: new OtherAgent() })).toContain('(route: through the dispatcher option;');
  });

  it('where the runtime says no undici version, is taken as given', async () => {
    environment({});
    useRuntime({ undici: undefined });
    expect(await failure({ dispatcher: new Agent() })).toContain('(route: through the dispatcher option;');
  });
});

describe('network options refused by new Client()', () => {
  it.each([
    ['an ftp proxy', { proxy: 'ftp://proxy.example:21' }, 'proxy', 'proxy must be an http(s) URL'],
    ['a proxy without scheme', { proxy: 'proxy.example:3128' }, 'proxy', 'proxy must be an http(s) URL'],
    ['a proxy that is a number', { proxy: 3128 }, 'proxy', 'proxy must be an http(s) URL'],
    ['an empty ca list', { ca: [] }, 'ca', 'ca must be PEM text'],
    ['a ca list with one non-PEM', { ca: [pem.cert, 'not a pem'] }, 'ca', 'ca must be PEM text'],
    ['a ca that is a number', { ca: 42 }, 'ca', 'ca must be PEM text'],
    ['a key without cert', { key: pem.key }, 'cert', 'cert and key go together: pass both for mutual TLS'],
    ['a cert without key', { cert: pem.cert }, 'key', 'cert and key go together: pass both for mutual TLS'],
    ['a cert that is not PEM', { cert: 'not a pem', key: pem.key }, 'cert', 'cert and key must be PEM text (-----BEGIN …-----)'],
    ['a key that is not PEM', { cert: pem.cert, key: 'not a pem' }, 'cert', 'cert and key must be PEM text (-----BEGIN …-----)'],
    ['a null dispatcher', { dispatcher: null }, 'dispatcher', 'dispatcher must be an undici Dispatcher'],
    ['a dispatcher with proxy', { dispatcher: new Agent(), proxy: 'http://proxy.example:3128' }, 'dispatcher', 'dispatcher is exclusive with proxy, ca, cert and key'],
    ['a dispatcher with ca', { dispatcher: new Agent(), ca: pem.cert }, 'dispatcher', 'dispatcher is exclusive with proxy, ca, cert and key'],
    ['a dispatcher with cert and key', { dispatcher: new Agent(), cert: pem.cert, key: pem.key }, 'dispatcher', 'dispatcher is exclusive with proxy, ca, cert and key'],
  ])('%s is a ValidationError on %s', (_, options, field, message) => {
    const make = () => new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', ...(options as object) });
    expect(make).toThrow(ValidationError);
    expect(make).toThrow(/^\[svc-sdk\] new Client\(\): /);
    expect(make).toThrow(message);
    try {
      make();
    } catch (error) {
      expect((error as ValidationError).issues.map((issue) => issue.path.join('.'))).toEqual([field]);
    }
  });

  it.each([
    ['an https proxy', { proxy: 'https://proxy.example:3128' }],
    ['proxy: false', { proxy: false }],
    ["ca: 'system'", { ca: 'system' }],
    ['a dispatcher with proxy: false', { dispatcher: new Agent(), proxy: false }],
  ])('%s is taken', (_, options) => {
    expect(() => new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', ...(options as object) })).not.toThrow();
  });
});

reportMissing('tinyproxy');

describe.skipIf(!tools.tinyproxy)('connections through tinyproxy', () => {
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  let proxy: RunningProxy;
  beforeAll(async () => {
    origin = await startOrigin(pem);
    proxy = await startTinyproxy(work.dir);
  });
  afterAll(async () => {
    await proxy?.stop();
    await origin?.close();
  });

  it('a client\'s calls share their tunnels: 30 requests in a row open one or two CONNECTs, not one each', async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: origin.url, proxy: proxy.url, ca: pem.cert });
    const tunnels = () => (proxy.log().match(new RegExp(`CONNECT 127\\.0\\.0\\.1:${new URL(origin.url).port}`, 'g')) ?? []).length;
    const before = origin.requests.length;
    for (let call = 0; call < 10; call++) expect(await client.webhooks.list()).toHaveLength(3);
    expect(origin.requests.length - before).toBe(30);
    expect(tunnels()).toBeGreaterThanOrEqual(1);
    expect(tunnels()).toBeLessThanOrEqual(2);
  });
});
