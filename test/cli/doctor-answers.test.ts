import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { duration } from '../../packages/cli/src/doctor-report.js';
import { scratch, selfSigned, tools } from '../network/proxies.js';
import { run } from './support.js';
import { doctorEnv, doctorLine } from './doctor-support.js';

// `svc-sdk doctor` against a node:http server on 127.0.0.1 that answers as each test says (a status, a reason, a
// Date or none, a delay), and each misuse of its command line: the one line each answer makes, word for word. (A refusal's
// key line names its status alone: the Client's APIError carries no reason phrase.)

const KEY = 'vdr_doctor_answers_key_7d2e';

interface Answering {
  url: string;
  /** Each request's method, path, headers and body. */
  requests: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
  /** Resolves once every connection to it has closed, or rejects after `ms`. */
  idle(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** A server answering every request through `answer`, which writes the response. */
async function answering(answer: (response: ServerResponse) => void): Promise<Answering> {
  const requests: Answering['requests'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk));
    request.on('end', () => {
      requests.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      answer(response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async idle(ms) {
      const until = Date.now() + ms;
      while (sockets.size > 0) {
        if (Date.now() > until) throw new Error(`${sockets.size} connection(s) still open after ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The service answering the read call with `status` (and `reason`), its Date `dateOffsetMs` off, or none. */
const service = (status: number, reason?: string, options: { dateOffsetMs?: number; noDate?: boolean; delayMs?: number } = {}) =>
  answering((response) => {
    if (options.noDate) response.sendDate = false;
    else response.setHeader('date', new Date(Date.now() + (options.dateOffsetMs ?? 0)).toUTCString());
    const send = () => response.writeHead(status, reason ?? '', { 'content-type': 'application/json' }).end('{"success":true,"data":[]}');
    if (options.delayMs) setTimeout(send, options.delayMs);
    else send();
  });

const READ = 'GET /api/v1/svc/transactions';

describe("the key line, for each answer of the service's read call", () => {
  it.each([
    [299, 'Fine', `ok   key      accepted (${READ} answered 299 Fine)`],
    [300, 'Multiple Choices', `fail key      ${READ} answered 300; fix: see the status`],
    [403, 'Forbidden', `fail key      not allowed to read: ${READ} answered 403; fix: ask for a key with read access`],
    [404, 'Not Found', `fail key      ${READ} answered 404; fix: check SVC_BASE_URL: it is the service's base URL, without /api/v1 (the SDK appends it)`],
    [409, 'Conflict', `fail key      ${READ} answered 409; fix: see the status`],
    [499, '', `fail key      ${READ} answered 499; fix: see the status`],
    [500, 'Internal Server Error', `fail key      ${READ} answered 500; fix: the service is failing: try again later`],
    [599, '', `fail key      ${READ} answered 599; fix: the service is failing: try again later`],
  ])('%i %s', async (status, reason, expected) => {
    const served = await service(status, reason);
    try {
      const result = await run(['doctor'], doctorEnv(KEY, served.url));
      expect(doctorLine(result, 'key')).toBe(expected);
      expect(result.code).toBe(status === 299 ? 0 : 1);
    } finally {
      await served.close();
    }
  });

  it('a 401 names where the key came from: SVC_API_KEY', async () => {
    const served = await service(401, 'Unauthorized');
    try {
      const result = await run(['doctor'], doctorEnv(KEY, served.url));
      expect(doctorLine(result, 'key')).toBe(`fail key      refused: ${READ} answered 401; fix: set SVC_API_KEY to a key this service issued (a key of another deployment is refused)`);
    } finally {
      await served.close();
    }
  });

  it.each([
    ['SVC_API_KEY', [], { SVC_API_KEY: 'sk_live_not_ours' }],
    ['--api-key', ['--api-key', 'sk_live_not_ours'], {}],
  ])('a key that is not one (%s) fails the key line with the Client\'s reason, and the call is sent with none', async (source, args, env) => {
    const served = await service(401, 'Unauthorized');
    try {
      const result = await run(['doctor', ...args], doctorEnv(KEY, served.url, env));
      expect(result.code).toBe(1);
      expect(doctorLine(result, 'key')).toMatch(new RegExp(`^fail key {6}${source} is not a key: apiKey .+; fix: set ${source} to the whole key \\(vdr_…\\)$`));
      expect(result.stdout).not.toContain('sk_live_not_ours');
      expect(served.requests.map((request) => request.headers.authorization)).not.toContain('Bearer sk_live_not_ours');
      expect(doctorLine(result, 'clock')).toMatch(/^ok /);
    } finally {
      await served.close();
    }
  });
});

describe('the clock line', () => {
  it('no Date header: skipped, saying so', async () => {
    const served = await service(200, 'OK', { noDate: true });
    try {
      const result = await run(['doctor'], doctorEnv(KEY, served.url));
      expect(doctorLine(result, 'clock')).toBe('skip clock    the service sent no Date header: the clock is not checked');
      expect(result.code).toBe(0);
    } finally {
      await served.close();
    }
  });

  it('2 minutes off, within the 5 minutes receivers allow: passes, naming the difference', async () => {
    const served = await service(200, 'OK', { dateOffsetMs: 120_000 });
    try {
      const result = await run(['doctor'], doctorEnv(KEY, served.url));
      expect(doctorLine(result, 'clock')).toMatch(/^ok {3}clock {4}this machine's clock is (1 min 59 s|2 min|2 min 1 s) behind the service's; receivers allow 5 min of skew in svc-sdk\/webhooks' replay window of 12 h \(tolerance\)$/);
      expect(result.code).toBe(0);
    } finally {
      await served.close();
    }
  });

  it('a slow answer widens the margin by half the round trip: 1.2 s there and back is in step within 1.1 s', async () => {
    const served = await service(200, 'OK', { delayMs: 1200 });
    try {
      const result = await run(['doctor'], doctorEnv(KEY, served.url));
      expect(doctorLine(result, 'clock')).toMatch(/^ok {3}clock {4}in step with the service's Date \(within 1\.[1-3] s\)/);
    } finally {
      await served.close();
    }
  });
});

describe('the webhook line, for each answer of the receiver to an unsigned POST', () => {
  it.each([
    [204, 'No Content', 'fail', 'accepted a POST with no valid signature (204 No Content); fix: verify every delivery'],
    [299, 'Fine', 'fail', 'accepted a POST with no valid signature (299 Fine); fix: verify every delivery'],
    [300, 'Multiple Choices', 'fail', 'redirects (300 Multiple Choices); fix: register the URL the redirect points to: deliveries do not follow redirects'],
    [399, 'Odd', 'fail', 'redirects (399 Odd); fix: register the URL'],
    [400, 'Bad Request', 'ok  ', 'is reachable from here: it refused a POST with no valid signature (400 Bad Request), as a receiver should'],
    [499, '', 'ok  ', 'is reachable from here: it refused a POST with no valid signature (499), as a receiver should'],
  ])('%i %s', async (status, reason, mark, text) => {
    const api = await service(200, 'OK');
    const receiver = await answering((response) => void response.writeHead(status, reason).end());
    try {
      const result = await run(['doctor', '--webhook-url', `${receiver.url}/hooks`], doctorEnv(KEY, api.url));
      expect(doctorLine(result, 'webhook').startsWith(`${mark} webhook  ${receiver.url}/hooks ${text}`), doctorLine(result, 'webhook')).toBe(true);
      expect(result.code).toBe(mark === 'ok  ' ? 0 : 1);
      // An empty JSON object, as a delivery's content type, named as the doctor's.
      expect(receiver.requests).toEqual([
        expect.objectContaining({ method: 'POST', url: '/hooks', body: '{}', headers: expect.objectContaining({ 'content-type': 'application/json', 'user-agent': 'svc-sdk-doctor' }) }),
      ]);
    } finally {
      await receiver.close();
      await api.close();
    }
  });

  it("closes its connections to the service and the receiver before it returns: a one-shot command's process can end", async () => {
    const api = await service(200, 'OK');
    const receiver = await answering((response) => void response.writeHead(401, 'Unauthorized').end());
    try {
      const result = await run(['doctor', '--webhook-url', `${receiver.url}/hooks`], doctorEnv(KEY, api.url));
      expect(result.code, result.stdout).toBe(0);
      // undici would keep an idle connection 4 s; closed by the doctor, they go at once.
      await api.idle(1000);
      await receiver.idle(1000);
    } finally {
      await receiver.close();
      await api.close();
    }
  });
});

describe('the command line', () => {
  const work = scratch('svc-doctor-args-');
  afterAll(() => work.remove());
  const notPem = join(work.dir, 'not.pem');
  writeFileSync(notPem, 'x');

  it.each([
    ['SVC_BASE_URL of another scheme', [], { SVC_BASE_URL: 'ftp://svc.example' }, 'SVC_BASE_URL "ftp://svc.example" must be an http:// or https:// URL, not ftp://, such as https://api.example.com'],
    ['--base-url of another scheme', ['--base-url', 'ftp://svc.example'], {}, '--base-url "ftp://svc.example" must be an http:// or https:// URL, not ftp://, such as https://api.example.com'],
    ['a user name in the service URL', ['--base-url', 'http://fund@svc.example'], {}, 'the service URL carries a user:password@, which requests to the service cannot: remove it (the API key goes in SVC_API_KEY)'],
    ['a password in the service URL', ['--base-url', 'http://:pa55@svc.example'], {}, 'the service URL carries a user:password@, which requests to the service cannot: remove it (the API key goes in SVC_API_KEY)'],
    ['--proxy with --no-proxy', ['--proxy', 'http://proxy.example:3128', '--no-proxy'], {}, '--proxy and --no-proxy exclude each other: pass one'],
    ['--proxy of another scheme', ['--proxy', 'socks://proxy.example:1080'], {}, '--proxy "socks://proxy.example:1080" must be an http:// or https:// URL, not socks://, such as http://proxy.example:3128'],
    ['--cert alone', ['--cert', notPem], {}, '--cert and --cert-key go together: pass both for mutual TLS'],
    ['--cert-key alone', ['--cert-key', notPem], {}, '--cert and --cert-key go together: pass both for mutual TLS'],
    ['--cert unreadable', ['--cert', join(work.dir, 'absent.pem'), '--cert-key', notPem], {}, `--cert ${join(work.dir, 'absent.pem')} cannot be read (ENOENT): pass a PEM file`],
    ['--cert-key unreadable', ['--cert', notPem, '--cert-key', join(work.dir, 'absent.pem')], {}, `--cert-key ${join(work.dir, 'absent.pem')} cannot be read (ENOENT): pass a PEM file`],
    ['--webhook-url of another scheme', ['--webhook-url', 'ftp://hooks.example'], {}, '--webhook-url "ftp://hooks.example" must be an http:// or https:// URL, not ftp://, such as https://hooks.example.com/svc'],
    ['--timeout 0', ['--timeout', '0'], {}, '--timeout must be a whole number from 1 to 600000, got "0"'],
  ])('%s is a misuse (exit 2), named', async (_, args, env, message) => {
    const result = await run(['doctor', ...args], { SVC_BASE_URL: 'http://127.0.0.1:1', ...env });
    expect(result.stderr).toBe(`[svc-sdk] ${message}\n`);
    expect(result.code).toBe(2);
  });

  it('the first line names the service; two failures are counted as such', async () => {
    const result = await run(['doctor', '--ca', notPem, '--cert', notPem, '--cert-key', notPem, '--webhook-url', 'http://127.0.0.1:1/hooks'], doctorEnv(KEY, 'http://127.0.0.1:1'));
    expect(result.stdout.split('\n')[0]).toBe('svc-sdk doctor: http://127.0.0.1:1/');
    // Every problem of the options, as the Client names them; the webhook's line fails with the same reason rather than crash.
    expect(doctorLine(result, 'route')).toBe("fail route    ca must be PEM text (-----BEGIN CERTIFICATE-----…), an array of them, or 'system'; cert and key must be PEM text (-----BEGIN …-----); fix: correct --proxy, --ca or --cert");
    expect(doctorLine(result, 'webhook')).toMatch(/^fail webhook {2}http:\/\/127\.0\.0\.1:1\/hooks is unreachable from here: \[svc-sdk\] new Client\(\): .*ca must be PEM text/);
    expect(result.stdout).toMatch(/\n2 checks failed\n$/);
    expect(result.code).toBe(1);
  });

  it.skipIf(!tools.openssl)("--ca system and --cert / --cert-key: the trust line names the system store and the client certificate", async () => {
    const api = await service(200, 'OK');
    const pem = selfSigned(work.dir);
    try {
      const result = await run(['doctor', '--ca', 'system', '--cert', pem.certFile, '--cert-key', join(work.dir, 'origin-key.pem')], doctorEnv(KEY, api.url));
      expect(doctorLine(result, 'trust')).toMatch(/^ok {3}trust {4}the system store besides Node's bundled CAs.*, presenting the cert option$/);
      expect(result.code, result.stdout).toBe(0);
    } finally {
      await api.close();
    }
  });
});

describe('duration(ms), as the clock line says it', () => {
  it.each([
    [400, '0.4 s'],
    [-400, '0.4 s'],
    [9_940, '9.9 s'],
    [10_000, '10 s'],
    [59_400, '59 s'],
    [60_000, '1 min'],
    [61_000, '1 min 1 s'],
    [-300_000, '5 min'],
    [3_600_000, '1 h'],
    [3_660_000, '61 min'],
    [43_200_000, '12 h'],
  ])('%i ms is %s', (ms, text) => {
    expect(duration(ms)).toBe(text);
  });
});
