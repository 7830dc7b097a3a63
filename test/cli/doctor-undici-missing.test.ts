import { describe, expect, it, vi } from 'vitest';
import { run } from './support.js';

// undici is an optional peer of the library (a dependency of the CLI's package, but a project may run the CLI
// without it): a proxy then needs it, and the route line says to install it, in the library's words without their prefix.
vi.mock('../../node_modules/undici/index.js', () => {
  throw new Error("Cannot find package 'undici'");
});

describe('svc-sdk doctor without the undici package', () => {
  it('--proxy fails the route line naming the install, and nothing else is checked', async () => {
    const result = await run(['doctor', '--proxy', 'http://127.0.0.1:3128'], { SVC_BASE_URL: 'http://127.0.0.1:1', SVC_API_KEY: 'vdr_doctor_no_undici' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /\nfail route {4}the proxy, ca, cert and key options \(and a proxy from the environment\) need the undici package, an optional peer of svc-sdk: npm install undici@\d+; fix: install undici \(npm install undici, the major the message names\)\n1 check failed\n$/,
    );
  });
});
