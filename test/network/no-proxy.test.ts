import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { freePort } from '../webhooks/redis-server.js';

// NO_PROXY decides alike for the SDK (HTTP_PROXY read by default) and for Node's own fetch under
// NODE_USE_ENV_PROXY=1, host by host: a table of NO_PROXY values against hosts, each answered by a
// stand-in proxy (which says so) or, direct, by the origin (loopback names) or nobody (other names).

/** Answers every request with where it was answered: the stand-in proxy, or the origin. */
function answering(who: string): Server {
  const server = createServer((request, response) => {
    request.resume();
    const body = JSON.stringify({ success: true, data: [{ id: 1, name: who }] });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  // undici (the SDK's and Node's) tunnels even http:// through CONNECT: the stand-in answers inside the tunnel itself.
  server.on('connect', (_request, socket, head) => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) socket.unshift(head);
    server.emit('connection', socket);
  });
  return server;
}

const listen = (server: Server, port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

describe('NO_PROXY decides as Node\'s own fetch does (NODE_USE_ENV_PROXY=1)', () => {
  const proxy = answering('proxy');
  const origin = answering('origin');
  let proxyPort = 0;
  let port = 0;
  beforeAll(async () => {
    [proxyPort, port] = [await freePort(), await freePort()];
    await Promise.all([listen(proxy, proxyPort), listen(origin, port)]);
  });
  afterAll(() => {
    proxy.close();
    origin.close();
  });

  const hosts = ['localhost', '127.0.0.1', 'svc.internal.test', 'api.svc.internal.test', 'other.test'];
  const noProxies = () => ['', 'localhost', '127.0.0.1', 'svc.internal.test', '.svc.internal.test', '*.internal.test', 'internal.test', '*', `localhost:${port}`, `127.0.0.1:${port + 1}`, 'other.test, localhost'];

  /** Node's own decisions for one NO_PROXY value: a process with NODE_USE_ENV_PROXY=1 fetches each host. */
  async function nodeDecisions(noProxy: string): Promise<string[]> {
    const script = `
      const hosts = ${JSON.stringify(hosts)};
      const out = [];
      for (const host of hosts) {
        try {
          const answer = await (await fetch('http://' + host + ':${port}/api/v1/webhooks/', { signal: AbortSignal.timeout(5000) })).json();
          out.push(answer.data[0].name === 'proxy' ? 'proxy' : 'direct');
        } catch { out.push('direct'); }
      }
      console.log(JSON.stringify(out));`;
    // Not spawnSync: the stand-in proxy and the origin answer from this process's event loop.
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_USE_ENV_PROXY: '1', HTTP_PROXY: `http://127.0.0.1:${proxyPort}`, NO_PROXY: noProxy };
    // Lower case wins where both are set: none of the test machine's own may stay.
    for (const name of ['http_proxy', 'https_proxy', 'HTTPS_PROXY', 'no_proxy']) delete env[name];
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000, env });
    return JSON.parse(stdout) as string[];
  }

  /** The SDK's decisions for the same value: a default Client per host, HTTP_PROXY and NO_PROXY from the environment. */
  async function sdkDecisions(noProxy: string): Promise<string[]> {
    const saved = process.env;
    process.env = { ...saved, HTTP_PROXY: `http://127.0.0.1:${proxyPort}`, NO_PROXY: noProxy };
    for (const name of ['http_proxy', 'https_proxy', 'HTTPS_PROXY', 'no_proxy']) delete process.env[name];
    delete process.env.NODE_USE_ENV_PROXY;
    try {
      const out: string[] = [];
      for (const host of hosts) {
        const client = new Client({ apiKey: 'vdr_no_proxy', baseUrl: `http://${host}:${port}`, maxRetries: 0, timeout: 5_000 });
        const answer = await client.webhooks.list().catch(() => undefined);
        out.push(answer?.[0]?.name === 'proxy' ? 'proxy' : 'direct');
      }
      return out;
    } finally {
      process.env = saved;
    }
  }

  it('for every NO_PROXY value of the table, each host goes the same way', async () => {
    const table: Record<string, { sdk: string[]; node: string[] }> = {};
    for (const noProxy of noProxies()) table[noProxy] = { sdk: await sdkDecisions(noProxy), node: await nodeDecisions(noProxy) };
    for (const [noProxy, { sdk, node }] of Object.entries(table)) expect({ noProxy, decisions: sdk }).toEqual({ noProxy, decisions: node });
    // The table exercises both ways: everything proxied without NO_PROXY, nothing with '*'.
    expect(table['']!.node).toEqual(hosts.map(() => 'proxy'));
    expect(table['*']!.node).toEqual(hosts.map(() => 'direct'));
  }, 120_000);
});
