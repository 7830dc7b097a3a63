import { spawnSync } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../webhooks/redis-server.js';
import { scratch, tools } from '../network/proxies.js';
import { doctorEnv, doctorLine, serveEmulator, type Served } from './doctor-support.js';
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

  it("a proxy host that does not resolve: the dns line names the proxy's host and its variable; connect is skipped", async () => {
    const result = await run(['doctor'], envOf(service.url, 'http://svc-doctor-proxy.invalid:3128'));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'route')).toMatch(/^ok {3}route {4}http:\/\/127\.0\.0\.1:\d+\/ through HTTPS?_PROXY http:\/\/svc-doctor-proxy\.invalid:3128/);
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
    ['a host that does not resolve', 'http://svc-doctor-direct.invalid:4010'],
    ['a closed port', 'closed'],
  ])('without a proxy, %s prints no connect line', async (_what, baseUrl) => {
    const url = baseUrl === 'closed' ? `http://127.0.0.1:${await freePort()}` : baseUrl;
    const result = await run(['doctor'], envOf(url));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'tls')).toBe('skip tls      the service URL is http://: no TLS to check');
    expect(result.stdout).not.toMatch(/^(ok {2}|fail|skip) connect /m);
  });

  it("leaves undici's connection channels as it found them: a long-lived process that runs it does not keep its listeners", async () => {
    const names = ['undici:client:beforeConnect', 'undici:client:connected', 'undici:client:connectError'];
    expect(names.map((name) => diagnostics.channel(name).hasSubscribers)).toEqual([false, false, false]);
    await run(['doctor'], envOf(service.url));
    expect(names.map((name) => diagnostics.channel(name).hasSubscribers)).toEqual([false, false, false]);
  });
});

describe.skipIf(!tools.openssl)('svc-sdk doctor against a certificate for another name', () => {
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
