import { spawnSync } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../webhooks/redis-server.js';
import { scratch, selfSigned, tools } from '../network/proxies.js';
import { doctorEnv, doctorLine, serveDelaying, serveEmulator, serveRefusingProxy, serveTunnellingProxy, serveUnaccepting, type Served } from './doctor-support.js';
import { run } from './support.js';

// The dns, tcp, connect and tls lines of `svc-sdk doctor` for the faults doctor.test.ts does not
// reach: a proxy whose host does not resolve, a proxy on a closed port, a certificate for another
// name, certificates named by O or by two CNs or not at all, and undici's channels left unsubscribed.
// In process, against real listeners (or none) on 127.0.0.1.

const KEY = 'vdr_doctor_net_secret_9a2e';

/** The environment of a run: the key, the service, and `proxy` as HTTPS_PROXY and HTTP_PROXY (none by default). */
const envOf = (baseUrl: string, proxy = '') => doctorEnv(KEY, baseUrl, { HTTPS_PROXY: proxy, HTTP_PROXY: proxy });

describe('svc-sdk doctor through a proxy it cannot reach', () => {
  let service: Served;
  beforeAll(async () => void (service = await serveEmulator({ apiKey: KEY })));
  afterAll(() => service?.close());

  // Without a port, the proxy's connection is to its scheme's (80, 443), where the doctor looks for it.
  it.each(['http://svc-doctor-proxy.invalid:3128', 'http://svc-doctor-proxy.invalid', 'https://svc-doctor-proxy.invalid'])("a proxy host that does not resolve (%s): the dns line names the proxy's host and its variable; connect is skipped", async (proxy) => {
    const result = await run(['doctor'], envOf(service.url, proxy));
    expect(result.code).toBe(1);
    // Both variables name it: the route names the first in precedence.
    expect(doctorLine(result, 'route')).toBe(`ok   route    ${service.url}/ through HTTPS_PROXY ${proxy}`);
    expect(doctorLine(result, 'dns')).toMatch(/^fail dns {6}the proxy's host svc-doctor-proxy\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\); fix: correct the proxy's host in HTTPS?_PROXY, or check this machine's resolver \(\/etc\/resolv\.conf, the VPN\)$/);
    expect(doctorLine(result, 'tcp')).toBe('skip tcp      no address to connect to');
    expect(doctorLine(result, 'connect')).toBe('skip connect  no proxy to ask');
    expect(doctorLine(result, 'tls')).toBe('skip tls      the service URL is http://: no TLS to check');
    expect(doctorLine(result, 'key')).toBe('skip key      the service was not reached');
  });

  it('a proxy on a closed port: the tcp line names the proxy and its variable; connect is skipped', async () => {
    const port = await freePort();
    const result = await run(['doctor'], envOf(service.url, `http://127.0.0.1:${port}`));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'dns')).toBe(`ok   dns      127.0.0.1 is an address: no lookup (the proxy resolves 127.0.0.1)`);
    expect(doctorLine(result, 'tcp')).toMatch(new RegExp(`^fail tcp {6}127\\.0\\.0\\.1:${port}: connection refused \\(ECONNREFUSED\\): nothing listens there; fix: check that the proxy runs at http://127\\.0\\.0\\.1:${port} \\(HTTPS?_PROXY\\), or that this machine may reach it$`));
    expect(doctorLine(result, 'connect')).toBe('skip connect  no connection to the proxy');
    expect(doctorLine(result, 'tls')).toBe('skip tls      the service URL is http://: no TLS to check');
  });

  it.each([
    ['a host that does not resolve', 'http://svc-doctor-direct.invalid:4010', 'the service URL is http://: no TLS to check'],
    ['a closed port', 'http://127.0.0.1:closed', 'the service URL is http://: no TLS to check'],
    ['an https:// host that does not resolve', 'https://svc-doctor-direct.invalid:4010', 'no connection'],
    ['an https:// closed port', 'https://127.0.0.1:closed', 'no connection'],
  ])('without a proxy, %s prints no connect line, and the tls line says why: %s', async (_what, baseUrl, tls) => {
    const url = baseUrl.replace('closed', String(await freePort()));
    const result = await run(['doctor'], envOf(url));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'tls')).toBe(`skip tls      ${tls}`);
    expect(result.stdout).not.toMatch(/^(ok {2}|fail|skip) connect /m);
  });

  it('a host name that resolves: the dns line names the address, and so does the tcp line', async () => {
    const result = await run(['doctor'], envOf(service.url.replace('127.0.0.1', 'localhost')));
    expect(result.code, result.stdout).toBe(0);
    expect(doctorLine(result, 'dns')).toBe('ok   dns      localhost → 127.0.0.1');
    expect(doctorLine(result, 'tcp')).toBe(`ok   tcp      connected to localhost:${service.port} (127.0.0.1)`);
  });

  it('a port that never completes a connection: the tcp line says none came within --timeout, and to raise it', async () => {
    const silent = await serveUnaccepting();
    // The doctor waits for undici's own connect timeout (10 s) before it returns: the listener goes once the 300 ms are over.
    const cut = setTimeout(() => void silent.close(), 1500);
    try {
      const result = await run(['doctor', '--timeout', '300'], envOf(`http://localhost:${silent.port}`));
      expect(result.code).toBe(1);
      // No address: the connection never came to be, nor failed.
      expect(doctorLine(result, 'dns')).toBe('ok   dns      localhost → resolved');
      expect(doctorLine(result, 'tcp')).toBe(`fail tcp      localhost:${silent.port}: no connection within 300 ms; fix: raise --timeout, or check that the service listens on localhost:${silent.port} (the port in SVC_BASE_URL); a firewall that drops it needs localhost:${silent.port} allowed, or a proxy (HTTPS_PROXY)`);
      expect(doctorLine(result, 'key')).toBe('skip key      the service was not reached');
    } finally {
      clearTimeout(cut);
      await silent.close();
    }
  });

  it('NO_PROXY set but no proxy: the route is direct, and does not name NO_PROXY (nothing it exempts from)', async () => {
    const result = await run(['doctor'], { ...envOf(service.url), NO_PROXY: '127.0.0.1' });
    expect(result.code, result.stdout).toBe(0);
    expect(doctorLine(result, 'route')).toBe(`ok   route    ${service.url}/ direct`);
  });

  it('a proxy set for the service\'s own host:port, which NO_PROXY exempts: the route is direct, not through the proxy', async () => {
    const result = await run(['doctor'], { ...envOf(service.url, service.url), NO_PROXY: '127.0.0.1' });
    expect(result.code, result.stdout).toBe(0);
    expect(doctorLine(result, 'route')).toBe(`ok   route    ${service.url}/ direct (NO_PROXY: 127.0.0.1)`);
  });

  it('a proxy that asks for credentials (407): the connect line says to give them in its variable', async () => {
    const proxy = await serveRefusingProxy(407);
    try {
      const result = await run(['doctor'], envOf(service.url, proxy.url));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'connect')).toMatch(new RegExp(`^fail connect {2}the proxy refused to tunnel to 127\\.0\\.0\\.1:${service.port} \\(it answered 407 to CONNECT\\); fix: the proxy wants credentials: give them in HTTPS?_PROXY as http://user:password@127\\.0\\.0\\.1:${proxy.port}$`));
      expect(doctorLine(result, 'tls')).toBe('skip tls      the service URL is http://: no TLS to check');
    } finally {
      await proxy.close();
    }
  });

  it('a proxy that drops the tunnel to a service it cannot reach: the connect line says the tunnel failed, and why', async () => {
    const proxy = await serveTunnellingProxy();
    const closed = await freePort();
    try {
      const result = await run(['doctor', '--timeout', '300'], envOf(`http://127.0.0.1:${closed}`, proxy.url));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'tcp')).toBe(`ok   tcp      connected to 127.0.0.1:${proxy.port}`);
      // undici asks again until the timeout, its last try cut off: the line reports the tries that ended.
      expect(proxy.requests.length).toBeGreaterThan(1);
      expect(doctorLine(result, 'connect')).toBe(`fail connect  the tunnel to 127.0.0.1:${closed} failed: the connection closed before an answer (UND_ERR_SOCKET); fix: ask the proxy's administrators to allow CONNECT to 127.0.0.1:${closed}, or add 127.0.0.1 to NO_PROXY if it is reachable directly`);
      expect(doctorLine(result, 'key')).toBe('skip key      the service was not reached');
    } finally {
      await proxy.close();
    }
  });

  it("leaves undici's connection channels as it found them: a long-lived process that runs it does not keep its listeners", async () => {
    const names = ['undici:client:beforeConnect', 'undici:client:connected', 'undici:client:connectError'];
    expect(names.map((name) => diagnostics.channel(name).hasSubscribers)).toEqual([false, false, false]);
    await run(['doctor'], envOf(service.url));
    expect(names.map((name) => diagnostics.channel(name).hasSubscribers)).toEqual([false, false, false]);
  });
});

/** A self-signed certificate for 127.0.0.1 valid only on 1 January 2020 (openssl ca, as req cannot date one back). */
function expiredCertificate(dir: string): { key: string; cert: string; certFile: string } {
  const ca = join(dir, 'expired-ca');
  mkdirSync(ca);
  writeFileSync(join(ca, 'index.txt'), '');
  writeFileSync(join(ca, 'serial'), '01\n');
  writeFileSync(join(ca, 'ca.cnf'), `[ca]\ndefault_ca = here\n[here]\ndatabase = ${ca}/index.txt\nnew_certs_dir = ${ca}\nserial = ${ca}/serial\ndefault_md = sha256\npolicy = any\ncopy_extensions = copy\n[any]\ncommonName = supplied\n`);
  const keyFile = join(ca, 'key.pem');
  const certFile = join(ca, 'cert.pem');
  const steps = [
    ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=expired origin', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', join(ca, 'request.csr')],
    ['ca', '-config', join(ca, 'ca.cnf'), '-selfsign', '-keyfile', keyFile, '-in', join(ca, 'request.csr'), '-out', certFile, '-startdate', '20200101000000Z', '-enddate', '20200102000000Z', '-batch', '-notext'],
  ];
  for (const args of steps) {
    const made = spawnSync('openssl', args, { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`openssl ${args[0]} failed: ${made.stderr}`);
  }
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

describe.skipIf(!tools.openssl)('svc-sdk doctor against a certificate for another name, an expired one, and through a tunnel', () => {
  const work = scratch('svc-doctor-net-');
  let service: Served;
  let certFile: string;
  beforeAll(async () => {
    const keyFile = join(work.dir, 'other-key.pem');
    certFile = join(work.dir, 'other-cert.pem');
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=other.example', '-addext', 'subjectAltName=DNS:other.example', '-keyout', keyFile, '-out', certFile], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
    service = await serveEmulator({ tls: { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') }, apiKey: KEY });
  });
  afterAll(async () => {
    await service?.close();
    work.remove();
  });

  it('a trusted certificate that does not name the host: the tls line says ALTNAME and to check the host; exit 1', async () => {
    const result = await run(['doctor', '--ca', certFile], envOf(service.url));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'tcp')).toMatch(/^ok /);
    expect(doctorLine(result, 'tls')).toMatch(/^fail tls {6}.*\(ERR_TLS_CERT_ALTNAME_INVALID\) \(trust: the ca option \(1 certificate\).*\); fix: the certificate is not for 127\.0\.0\.1: check the host in SVC_BASE_URL$/);
    expect(doctorLine(result, 'key')).toBe('skip key      the service was not reached');
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('an expired certificate, trusted: the tls line says so, and to check the clock first', async () => {
    const expired = expiredCertificate(work.dir);
    const served = await serveEmulator({ tls: expired, apiKey: KEY });
    try {
      const result = await run(['doctor', '--ca', expired.certFile], envOf(served.url));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'tls')).toMatch(/^fail tls {6}.*\(CERT_HAS_EXPIRED\) \(trust: the ca option \(1 certificate\).*\); fix: check this machine's clock \(see the clock line\), then tell the service's operators$/);
    } finally {
      await served.close();
    }
  });

  it('a service that completes the handshake but never answers: tls passes, and the key line says no answer came', async () => {
    const made = selfSigned(work.dir);
    const mute = createHttpsServer(made, () => undefined);
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const { port } = mute.address() as AddressInfo;
    try {
      const result = await run(['doctor', '--timeout', '300', '--ca', made.certFile], envOf(`https://127.0.0.1:${port}`));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'tls')).toMatch(/^ok {3}tls {6}TLSv1\.[23], a certificate for svc-sdk test origin issued by svc-sdk test origin, trusted$/);
      expect(doctorLine(result, 'key')).toBe('fail key      no answer: GET /api/v1/svc/transactions timed out after 300 ms: raise `timeout` or try again; fix: raise --timeout, or try again: the service may be down');
    } finally {
      mute.closeAllConnections();
      await new Promise((resolve) => mute.close(resolve));
    }
  });

  it('an https:// URL of a plain HTTP port: the tls line fails with the TLS error, and says to check the trust settings', async () => {
    const plain = await serveEmulator({ apiKey: KEY });
    try {
      const result = await run(['doctor'], envOf(plain.url.replace('http:', 'https:')));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'tcp')).toBe(`ok   tcp      connected to 127.0.0.1:${plain.port}`);
      expect(doctorLine(result, 'tls')).toMatch(/^fail tls {6}.*\(ERR_SSL_[A-Z_]+\) \(trust: Node's bundled CAs.*\); fix: check --ca and NODE_EXTRA_CA_CERTS$/);
    } finally {
      await plain.close();
    }
  });

  describe('through a proxy that tunnels', () => {
    let proxy: Served;
    beforeAll(async () => void (proxy = await serveTunnellingProxy()));
    afterAll(() => proxy?.close());

    it("an untrusted certificate: the tls line's fix adds that a proxy intercepting TLS signs with its own CA", async () => {
      const result = await run(['doctor'], envOf(service.url, proxy.url));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'connect')).toBe(`ok   connect  the proxy tunnels to 127.0.0.1:${service.port}`);
      expect(doctorLine(result, 'tls')).toMatch(/^fail tls {6}.*\(DEPTH_ZERO_SELF_SIGNED_CERT\) .*; fix: trust the CA that signed it: NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem, or --ca \/path\/to\/ca\.pem \(the Client's ca option\); a proxy that intercepts TLS signs with its own CA: trust that one$/);
    });

    it('another TLS error: its fix names the trust settings and the proxy that may intercept', async () => {
      const plain = await serveEmulator({ apiKey: KEY });
      try {
        const result = await run(['doctor'], envOf(plain.url.replace('http:', 'https:'), proxy.url));
        expect(result.code).toBe(1);
        expect(doctorLine(result, 'tls')).toMatch(/^fail tls {6}.*\(ERR_SSL_[A-Z_]+\) .*; fix: check --ca and NODE_EXTRA_CA_CERTS; a proxy that intercepts TLS signs with its own CA: trust that one$/);
      } finally {
        await plain.close();
      }
    });

    it('a service that never starts the handshake: the tls line says none came, and to raise --timeout', async () => {
      const sockets = new Set<Socket>();
      // The doctor waits for undici's own connect timeout (10 s) before it returns: each connection goes 1 s after it came.
      const silent = createNetServer((socket) => {
        sockets.add(socket);
        setTimeout(() => socket.destroy(), 1000).unref();
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      try {
        const result = await run(['doctor', '--timeout', '300'], envOf(`https://127.0.0.1:${port}`, proxy.url));
        expect(result.code).toBe(1);
        expect(doctorLine(result, 'connect')).toBe(`ok   connect  the proxy tunnels to 127.0.0.1:${port}`);
        expect(doctorLine(result, 'tls')).toBe('fail tls      no handshake: GET /api/v1/svc/transactions timed out after 300 ms: raise `timeout` or try again; fix: raise --timeout');
        expect(doctorLine(result, 'key')).toBe('skip key      the service was not reached');
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    });
  });

  it("another work's connections in the same process, begun before the doctor or during it, are not taken for the doctor's", async () => {
    const made = selfSigned(work.dir);
    const origin = await serveEmulator({ tls: made, apiKey: KEY });
    // The other work's service has a certificate of its own: taken for the doctor's, it would name it on the tls line.
    const otherKey = join(work.dir, 'other-work-key.pem');
    const otherCert = join(work.dir, 'other-work-cert.pem');
    const madeOther = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=another work', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', otherKey, '-out', otherCert], { encoding: 'utf8' });
    expect(madeOther.status, madeOther.stderr).toBe(0);
    const other = await serveEmulator({ tls: { key: readFileSync(otherKey, 'utf8'), cert: readFileSync(otherCert, 'utf8') } });
    const never = await serveUnaccepting();
    const agent = new Agent({ connect: { ca: [made.cert, readFileSync(otherCert, 'utf8')] } });
    const others = new AbortController();
    const otherFetch = (url: string) => void undiciFetch(url, { dispatcher: agent, signal: others.signal }).catch(() => undefined);
    let begun = 0;
    const counted = () => void begun++;
    // Begun before the doctor subscribes, one shakes hands (at 0.6 s) and one is dropped (at 1 s) while it listens.
    const connecting = await serveDelaying(other.port, 600, { onConnection: counted });
    const dropped = await serveDelaying(other.port, 1000, { drop: true, onConnection: counted });
    // The doctor's own connection shakes hands at 1.5 s; once it begins, another one begins, and never completes.
    const slow = await serveDelaying(origin.port, 1500, { onConnection: () => otherFetch(`http://127.0.0.1:${never.port}/`) });
    try {
      otherFetch(`${connecting.url}/`);
      otherFetch(`${dropped.url}/`);
      await vi.waitFor(() => expect(begun).toBe(2));
      const result = await run(['doctor', '--ca', made.certFile], envOf(slow.url));
      expect(result.code, result.stdout).toBe(0);
      expect(doctorLine(result, 'tcp')).toBe(`ok   tcp      connected to 127.0.0.1:${slow.port}`);
      expect(doctorLine(result, 'tls')).toMatch(/^ok {3}tls {6}TLSv1\.[23], a certificate for svc-sdk test origin issued by svc-sdk test origin, trusted$/);
    } finally {
      others.abort();
      await agent.destroy();
      await Promise.all([slow.close(), connecting.close(), dropped.close(), never.close(), other.close(), origin.close()]);
    }
  });

  it.each([
    ['/O=svc-sdk test org', 'svc-sdk test org'],
    ['/CN=first name/CN=second name', 'first name, second name'],
    ['/C=NL', 'an unnamed subject'],
  ])('a certificate whose subject is %s is named %s on the tls line', async (subject, shown) => {
    const keyFile = join(work.dir, 'named-key.pem');
    const namedCert = join(work.dir, 'named-cert.pem');
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', subject, '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', namedCert], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const named = await serveEmulator({ tls: { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(namedCert, 'utf8') }, apiKey: KEY });
    try {
      const result = await run(['doctor', '--ca', namedCert], envOf(named.url));
      expect(doctorLine(result, 'tls')).toMatch(new RegExp(`, a certificate for ${shown} issued by ${shown}, trusted$`));
    } finally {
      await named.close();
    }
  });
});
