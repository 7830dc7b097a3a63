import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../webhooks/redis-server.js';
import { reportMissing, scratch, selfSigned, startTinyproxy, tools, type RunningProxy } from '../network/proxies.js';
import { doctorEnv, doctorLine, serveEmulator, serveReceiver, serveRefusingProxy, type Served } from './doctor-support.js';
import { COMMANDS } from '../../packages/cli/src/commands/index.js';
import { runCli } from '../../packages/cli/src/run.js';
import { memoryIO } from '../uploads/upload-many-support.js';
import { built, cliEnv, run, runBin, type Run } from './support.js';

// `svc-sdk doctor` in process against the emulator on real loopback HTTP and HTTPS, a real proxy
// (tinyproxy), and one fault per test: each asserts the one line that fails, its fix, the exit
// code, and that no secret (the key, a proxy's password) is anywhere in the output.

const KEY = 'vdr_doctor_secret_key_4f1c';
const PROXY_PASSWORD = 'pr0xy-s3cret';

/** Asserts nothing secret was printed. */
function noSecrets(result: Run): void {
  const all = result.stdout + result.stderr;
  expect(all).not.toContain(KEY);
  expect(all).not.toContain(PROXY_PASSWORD);
}

describe('svc-sdk doctor over loopback HTTP', () => {
  let service: Served;
  beforeAll(async () => void (service = await serveEmulator({ apiKey: KEY })));
  afterAll(() => service?.close());

  it('passes every check against the emulator, and exits 0', async () => {
    const result = await run(['doctor'], doctorEnv(KEY, service.url));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(doctorLine(result, 'runtime')).toMatch(/^ok {3}runtime {2}Node \d+\.\d+\.\d+ .*svc-sdk \d+\.\d+\.\d+, @svc-sdk\/cli \d+\.\d+\.\d+$/);
    expect(doctorLine(result, 'route')).toBe(`ok   route    ${service.url}/ direct`);
    expect(doctorLine(result, 'trust')).toMatch(/^ok {3}trust {4}Node's bundled CAs/);
    expect(doctorLine(result, 'dns')).toBe('ok   dns      127.0.0.1 is an address: no lookup');
    expect(doctorLine(result, 'tcp')).toBe(`ok   tcp      connected to 127.0.0.1:${service.port}`);
    expect(doctorLine(result, 'tls')).toBe('skip tls      the service URL is http://: no TLS to check');
    expect(doctorLine(result, 'key')).toBe('ok   key      accepted (GET /api/v1/svc/transactions answered 200 OK)');
    expect(doctorLine(result, 'clock')).toMatch(/^ok {3}clock {4}in step with the service's Date \(within [\d.]+ s\); receivers allow 5 min of skew in svc-sdk\/webhooks' replay window of 12 h \(tolerance\)$/);
    expect(result.stdout).toMatch(/every check passed\n$/);
    expect(result.stdout).not.toContain('\x1b[');
    expect(service.requests).toContain('GET /api/v1/svc/transactions');
    noSecrets(result);
  });

  it.skipIf(!built)('the built bin reads its own version beside dist/ and passes the same checks', async () => {
    const result = await runBin(['doctor'], doctorEnv(KEY, service.url));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(doctorLine(result, 'runtime')).toMatch(/, @svc-sdk\/cli \d+\.\d+\.\d+$/);
    noSecrets(result);
  });

  it('a wrong key: the key line says 401 and how to fix it; exit 1, the key never printed', async () => {
    const result = await run(['doctor', '--api-key', `${KEY}_wrong`], doctorEnv(KEY, service.url));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'key')).toBe('fail key      refused: GET /api/v1/svc/transactions answered 401; fix: set --api-key to a key this service issued (a key of another deployment is refused)');
    expect(doctorLine(result, 'tcp')).toMatch(/^ok /);
    expect(result.stdout).toMatch(/1 check failed\n$/);
    noSecrets(result);
    expect(result.stdout + result.stderr).not.toContain(`${KEY}_wrong`);
  });

  it('a closed port: the tcp line fails with ECONNREFUSED and names the port; exit 1', async () => {
    const port = await freePort();
    const result = await run(['doctor'], doctorEnv(KEY, `http://127.0.0.1:${port}`));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'tcp')).toBe(`fail tcp      127.0.0.1:${port}: connection refused (ECONNREFUSED): nothing listens there; fix: check that the service listens on 127.0.0.1:${port} (the port in SVC_BASE_URL); a firewall that drops it needs 127.0.0.1:${port} allowed, or a proxy (HTTPS_PROXY)`);
    expect(doctorLine(result, 'key')).toBe('skip key      the service was not reached');
    noSecrets(result);
  });

  it('a host name that does not resolve: the dns line fails and names the host; exit 1', async () => {
    const result = await run(['doctor', '--base-url', 'http://svc-doctor-test.invalid:4010'], doctorEnv(KEY, service.url));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'dns')).toMatch(/^fail dns {6}svc-doctor-test\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\); fix: correct the host in SVC_BASE_URL \(or --base-url\), or check this machine's resolver \(\/etc\/resolv\.conf, the VPN\)$/);
    expect(doctorLine(result, 'tcp')).toBe('skip tcp      no address to connect to');
    noSecrets(result);
  });

  it('an unreachable webhook URL fails its line with the fix; a receiver refusing the unsigned POST with 401 is reachable', async () => {
    const receiver = await serveReceiver();
    const closed = await freePort();
    try {
      const down = await run(['doctor', '--webhook-url', `http://127.0.0.1:${closed}/hooks`], doctorEnv(KEY, service.url));
      expect(down.code).toBe(1);
      expect(doctorLine(down, 'webhook')).toBe(`fail webhook  http://127.0.0.1:${closed}/hooks is unreachable from here: connection refused (ECONNREFUSED): nothing listens there; fix: start the receiver, or correct --webhook-url (the service delivers to a public https:// URL)`);
      expect(doctorLine(down, 'key')).toMatch(/^ok /);
      noSecrets(down);
      const up = await run(['doctor', '--webhook-url', `${receiver.url}/hooks`], doctorEnv(KEY, service.url));
      expect(up.code, up.stdout).toBe(0);
      expect(doctorLine(up, 'webhook')).toBe(`ok   webhook  ${receiver.url}/hooks is reachable from here: it refused a POST with no valid signature (401 Unauthorized), as a receiver should`);
      expect(receiver.requests).toEqual(['POST /hooks']);
    } finally {
      await receiver.close();
    }
  });

  it('a receiver that accepts an unsigned POST fails the webhook line', async () => {
    const receiver = await serveReceiver(200);
    try {
      const result = await run(['doctor', '--webhook-url', `${receiver.url}/hooks`], doctorEnv(KEY, service.url));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'webhook')).toBe(`fail webhook  ${receiver.url}/hooks accepted a POST with no valid signature (200 OK); fix: verify every delivery (svc-sdk/webhooks: createWebhookHandler or verifyWebhook) and answer 4xx to a bad signature`);
    } finally {
      await receiver.close();
    }
  });

  it('a receiver failing on an unsigned POST (500) fails the webhook line: it should refuse it with a 4xx', async () => {
    const receiver = await serveReceiver(500);
    try {
      const result = await run(['doctor', '--webhook-url', `${receiver.url}/hooks`], doctorEnv(KEY, service.url));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'webhook')).toBe(`fail webhook  ${receiver.url}/hooks answered 500 Internal Server Error to an unsigned POST; fix: check the receiver's logs: it should answer 4xx to a bad signature, not fail`);
    } finally {
      await receiver.close();
    }
  });

  it('on a terminal the marks are a green ✓ and a red ✗', async () => {
    const memory = memoryIO(cliEnv(doctorEnv(KEY, service.url, { NO_COLOR: '' })), true);
    const code = await runCli(['doctor', '--api-key', `${KEY}_wrong`], memory.io, COMMANDS);
    await new Promise((resolve) => setImmediate(resolve));
    expect(code).toBe(1);
    expect(memory.out()).toContain('\x1b[32m✓\x1b[0m tcp ');
    expect(memory.out()).toContain('\x1b[31m✗\x1b[0m key ');
  });

  it('no key at all: the key line says so, and the network and the clock are still checked', async () => {
    const result = await run(['doctor'], { ...doctorEnv(KEY, service.url), SVC_API_KEY: '' });
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'key')).toBe('fail key      no API key: SVC_API_KEY is not set; fix: export SVC_API_KEY=vdr_… (the key the developer portal issued), or pass --api-key');
    expect(doctorLine(result, 'clock')).toMatch(/^ok /);
  });
});

describe('svc-sdk doctor against a service that never answers', () => {
  it('ends within --timeout: the key line says no answer came, the webhook line that it timed out', async () => {
    const sockets = new Set<Socket>();
    const silent = createNetServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const result = await run(['doctor', '--timeout', '300', '--webhook-url', `http://127.0.0.1:${port}/hooks`], doctorEnv(KEY, `http://127.0.0.1:${port}`));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'tcp')).toBe(`ok   tcp      connected to 127.0.0.1:${port}`);
      expect(doctorLine(result, 'key')).toBe('fail key      no answer: GET /api/v1/svc/transactions timed out after 300 ms: raise `timeout` or try again; fix: raise --timeout, or try again: the service may be down');
      expect(doctorLine(result, 'clock')).toBe('skip clock    no answer, so no Date header to compare');
      expect(doctorLine(result, 'webhook')).toBe(`fail webhook  http://127.0.0.1:${port}/hooks is unreachable from here: timed out: no answer within 300 ms; fix: start the receiver, or correct --webhook-url (the service delivers to a public https:// URL)`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('svc-sdk doctor against a clock 10 minutes off', () => {
  let ahead: Served;
  let behind: Served;
  beforeAll(async () => {
    ahead = await serveEmulator({ apiKey: KEY, dateOffsetMs: 10 * 60_000 });
    behind = await serveEmulator({ apiKey: KEY, dateOffsetMs: -10 * 60_000 });
  });
  afterAll(async () => {
    await ahead?.close();
    await behind?.close();
  });

  it('the service 10 minutes ahead: receivers here refuse every delivery (future_timestamp); exit 1', async () => {
    const result = await run(['doctor'], doctorEnv(KEY, ahead.url));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'clock')).toMatch(/^fail clock {4}this machine's clock is (9 min 59 s|10 min|10 min 1 s) behind the service's: receivers here see each delivery .+ in the future and refuse it \(future_timestamp: they allow 5 min\); fix: synchronise this machine's clock \(timedatectl set-ntp true, or chrony \/ ntpd\)$/);
    expect(doctorLine(result, 'key')).toMatch(/^ok /);
    noSecrets(result);
  });

  it('the service 10 minutes behind: the replay window shrinks by as much; exit 1', async () => {
    const result = await run(['doctor'], doctorEnv(KEY, behind.url));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'clock')).toMatch(/^fail clock {4}this machine's clock is (9 min 59 s|10 min|10 min 1 s) ahead of the service's: receivers here see each delivery .+ older: the 12 h replay window \(tolerance\) shrinks by as much; fix: synchronise/);
  });
});

reportMissing('openssl', 'tinyproxy');

describe.skipIf(!tools.openssl)('svc-sdk doctor over loopback HTTPS', () => {
  const work = scratch('svc-doctor-');
  let service: Served;
  let certFile: string;
  beforeAll(async () => {
    const made = selfSigned(work.dir);
    certFile = made.certFile;
    service = await serveEmulator({ tls: made, apiKey: KEY });
  });
  afterAll(async () => {
    await service?.close();
    work.remove();
  });

  it('passes every check with the origin\'s CA given as --ca: the tls line names the protocol and the certificate', async () => {
    const result = await run(['doctor', '--ca', certFile], doctorEnv(KEY, service.url));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(doctorLine(result, 'trust')).toMatch(/^ok {3}trust {4}the ca option \(1 certificate\) besides Node's bundled CAs/);
    expect(doctorLine(result, 'tls')).toMatch(/^ok {3}tls {6}TLSv1\.[23], a certificate for svc-sdk test origin issued by svc-sdk test origin, trusted$/);
    expect(doctorLine(result, 'key')).toMatch(/^ok /);
    noSecrets(result);
  });

  it('text from the network is printed escaped: a certificate named with an ESC sequence cannot clear the screen', async () => {
    const keyFile = join(work.dir, 'hostile-key.pem');
    const hostileCert = join(work.dir, 'hostile-cert.pem');
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=evil\x1b[2Jorigin', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', hostileCert], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const hostile = await serveEmulator({ tls: { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(hostileCert, 'utf8') }, apiKey: KEY });
    try {
      const result = await run(['doctor', '--ca', hostileCert], doctorEnv(KEY, hostile.url));
      expect(result.code, result.stdout).toBe(0);
      expect(doctorLine(result, 'tls')).toMatch(/, a certificate for evil\\x1b\[2Jorigin issued by evil\\x1b\[2Jorigin, trusted$/);
      expect(result.stdout).not.toContain('\x1b');
    } finally {
      await hostile.close();
    }
  });

  it('a CA that is not trusted: the tls line fails and its fix names NODE_EXTRA_CA_CERTS and --ca; exit 1', async () => {
    const result = await run(['doctor'], doctorEnv(KEY, service.url));
    expect(result.code).toBe(1);
    expect(doctorLine(result, 'tls')).toMatch(/^fail tls {6}TLS failed: .+ \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\) \(trust: Node's bundled CAs.*\); fix: trust the CA that signed it: NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem, or --ca \/path\/to\/ca\.pem \(the Client's ca option\)$/);
    expect(doctorLine(result, 'tcp')).toMatch(/^ok /);
    expect(doctorLine(result, 'key')).toBe('skip key      the service was not reached');
    noSecrets(result);
  });

  describe.skipIf(!tools.tinyproxy)('through tinyproxy (CONNECT)', () => {
    let proxy: RunningProxy;
    beforeAll(async () => void (proxy = await startTinyproxy(work.dir)));
    afterAll(() => proxy?.stop());

    it('HTTPS_PROXY with a password: the route names it redacted, connect passes, every check passes', async () => {
      const withPassword = proxy.url.replace('http://', `http://doctor:${PROXY_PASSWORD}@`);
      const result = await run(['doctor', '--ca', certFile], doctorEnv(KEY, service.url, { HTTPS_PROXY: withPassword }));
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(doctorLine(result, 'route')).toBe(`ok   route    ${service.url}/ through HTTPS_PROXY http://[redacted]@127.0.0.1:${proxy.port}`);
      expect(doctorLine(result, 'dns')).toBe(`ok   dns      127.0.0.1 is an address: no lookup (the proxy resolves 127.0.0.1)`);
      expect(doctorLine(result, 'tcp')).toBe(`ok   tcp      connected to 127.0.0.1:${proxy.port}`);
      expect(doctorLine(result, 'connect')).toBe(`ok   connect  the proxy tunnels to 127.0.0.1:${service.port}`);
      expect(doctorLine(result, 'tls')).toMatch(/^ok /);
      expect(proxy.log()).toMatch(new RegExp(`CONNECT 127\\.0\\.0\\.1:${service.port}`));
      noSecrets(result);
    });

    it('NO_PROXY naming the service: the route is direct, and says NO_PROXY', async () => {
      const result = await run(['doctor', '--ca', certFile], doctorEnv(KEY, service.url, { HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }));
      expect(result.code, result.stdout).toBe(0);
      expect(doctorLine(result, 'route')).toBe(`ok   route    ${service.url}/ direct (NO_PROXY: 127.0.0.1)`);
      expect(result.stdout).not.toMatch(/ connect /);
    });
  });

  it('a proxy that refuses CONNECT: the connect line fails with its 403 and the fix; exit 1, no password printed', async () => {
    const refusing = await serveRefusingProxy();
    try {
      const withPassword = refusing.url.replace('http://', `http://doctor:${PROXY_PASSWORD}@`);
      const result = await run(['doctor', '--ca', certFile], doctorEnv(KEY, service.url, { HTTPS_PROXY: withPassword }));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'route')).toBe(`ok   route    ${service.url}/ through HTTPS_PROXY http://[redacted]@127.0.0.1:${refusing.port}`);
      expect(doctorLine(result, 'tcp')).toBe(`ok   tcp      connected to 127.0.0.1:${refusing.port}`);
      expect(doctorLine(result, 'connect')).toBe(`fail connect  the proxy refused to tunnel to 127.0.0.1:${service.port} (it answered 403 to CONNECT); fix: ask the proxy's administrators to allow CONNECT to 127.0.0.1:${service.port}, or add 127.0.0.1 to NO_PROXY if it is reachable directly`);
      expect(doctorLine(result, 'tls')).toBe('skip tls      no tunnel');
      expect(refusing.requests[0]).toMatch(new RegExp(`^CONNECT 127\\.0\\.0\\.1:${service.port} Basic `));
      noSecrets(result);
      // --proxy names it as the option's; --no-proxy goes direct whatever HTTPS_PROXY says.
      const option = await run(['doctor', '--ca', certFile, '--proxy', withPassword], doctorEnv(KEY, service.url));
      expect(doctorLine(option, 'route')).toBe(`ok   route    ${service.url}/ through the proxy option http://[redacted]@127.0.0.1:${refusing.port}`);
      expect(doctorLine(option, 'connect')).toMatch(/^fail connect {2}the proxy refused to tunnel/);
      noSecrets(option);
      const direct = await run(['doctor', '--ca', certFile, '--no-proxy'], doctorEnv(KEY, service.url, { HTTPS_PROXY: withPassword }));
      expect(direct.code, direct.stdout).toBe(0);
      expect(doctorLine(direct, 'route')).toBe(`ok   route    ${service.url}/ direct`);
    } finally {
      await refusing.close();
    }
  });
});

describe('svc-sdk doctor on the command line', () => {
  it('has its own --help, and is in the global help', async () => {
    const help = await run(['doctor', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svc-sdk doctor /);
    expect((await run(['--help'])).stdout).toMatch(/\n {2}doctor +Checks this machine against the service/);
  });

  it('a mistyped command or flag gets a did-you-mean (exit 2)', async () => {
    const command = await run(['docter']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('did you mean "doctor"?');
    const flag = await run(['doctor', '--timout', '5'], { SVC_BASE_URL: 'http://127.0.0.1:1' });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('did you mean "--timeout"?');
  });

  it('without a service URL it is a misuse naming SVC_BASE_URL (exit 2)', async () => {
    const result = await run(['doctor'], { SVC_API_KEY: KEY });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('[svc-sdk] the service URL is missing: set SVC_BASE_URL or pass --base-url https://…\n');
  });

  it('a --ca file that cannot be read is a misuse naming it (exit 2); one that is not PEM fails the route line', async () => {
    const work = scratch('svc-doctor-ca-');
    try {
      writeFileSync(join(work.dir, 'present.pem'), 'x');
      const result = await run(['doctor', '--ca', join(work.dir, 'absent.pem')], { SVC_BASE_URL: 'http://127.0.0.1:1' });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--ca ${join(work.dir, 'absent.pem')} cannot be read (ENOENT): pass a PEM file`);
      // Read, but not PEM: the Client's own check of `ca`, as the route line.
      const notPem = await run(['doctor', '--ca', join(work.dir, 'present.pem')], { SVC_BASE_URL: 'http://127.0.0.1:1' });
      expect(notPem.code).toBe(1);
      expect(doctorLine(notPem, 'route')).toMatch(/^fail route {4}ca must be PEM text \(-----BEGIN CERTIFICATE-----…\), an array of them, or 'system'; fix: correct --proxy, --ca or --cert$/);
    } finally {
      work.remove();
    }
  });
});
