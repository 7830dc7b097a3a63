import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { doctorEnv, doctorLine, serveEmulator } from './doctor-support.js';
import { run } from './support.js';

const KEY = 'vdr_doctor_no_undici_reuse';

// undici is an optional peer of the library (a dependency of the CLI's package, but a project may run the CLI
// without it): a proxy then needs it, and the route line says to install it, in the library's words without their prefix.
vi.mock('../../node_modules/undici/index.js', () => {
  throw new Error("Cannot find package 'undici'");
});

describe('svc-sdk doctor without the undici package', () => {
  // Without undici the doctor calls the runtime's own fetch, whose connections outlive a run: a second run in the same
  // process (a long-lived one) is answered on the first's connection, and sees no connection made.
  it('a second run in the same process, answered on the connection the first opened: the network line says so', async () => {
    const service = await serveEmulator({ apiKey: KEY });
    try {
      const first = await run(['doctor'], doctorEnv(KEY, service.url));
      expect(doctorLine(first, 'tcp')).toBe(`ok   tcp      connected to 127.0.0.1:${service.port}`);
      const second = await run(['doctor'], doctorEnv(KEY, service.url));
      expect(second.code, second.stdout).toBe(0);
      expect(doctorLine(second, 'network')).toBe('ok   network  the service answered on a connection already open');
      expect(second.stdout).not.toMatch(/^(ok {2}|fail|skip) (dns|tcp|tls) /m);
      expect(doctorLine(second, 'key')).toMatch(/^ok /);
    } finally {
      await service.close();
    }
  });

  it('a second run whose answer does not come on that connection: the network line fails, saying the request failed on it', async () => {
    let answered = 0;
    const slow = createServer((_request, response) => {
      const send = () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"data":[]}');
      if (answered++ === 0) send();
      else setTimeout(send, 1000).unref();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    try {
      expect((await run(['doctor'], doctorEnv(KEY, url))).code).toBe(0);
      const second = await run(['doctor', '--timeout', '300'], doctorEnv(KEY, url));
      expect(second.code).toBe(1);
      expect(doctorLine(second, 'network')).toBe('fail network  no new connection: the request failed on one already open, or before connecting: GET /api/v1/svc/transactions timed out after 300 ms: raise `timeout` or try again; fix: raise --timeout, or check SVC_BASE_URL');
      expect(doctorLine(second, 'key')).toBe('skip key      the service was not reached');
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it('--proxy fails the route line naming the install, and nothing else is checked', async () => {
    const result = await run(['doctor', '--proxy', 'http://127.0.0.1:3128'], { SVC_BASE_URL: 'http://127.0.0.1:1', SVC_API_KEY: 'vdr_doctor_no_undici' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /\nfail route {4}the proxy, ca, cert and key options \(and a proxy from the environment\) need the undici package, an optional peer of svc-sdk: npm install undici@\d+; fix: install undici \(npm install undici, the major the message names\)\n1 check failed\n$/,
    );
  });
});
