import { describe, expect, it, vi } from 'vitest';
import { Client, UndiciMismatchError } from '../../src/index.node.js';
import { useRuntime } from '../support/runtime.js';

// undici is an optional peer: without it, a client whose options need a dispatcher fails its call naming the install.
// The undici the SDK imports (the root's; test/node_modules holds another copy).
vi.mock('../../node_modules/undici/index.js', () => {
  throw new Error("Cannot find package 'undici'");
});

describe('without the undici package', () => {
  const call = async () => {
    const client = new Client({ apiKey: 'vdr_undici_missing', baseUrl: 'https://127.0.0.1:65000', maxRetries: 0, proxy: 'http://127.0.0.1:65001' });
    return client.request({ method: 'GET', path: '/rooms' }).then(() => undefined, (caught: unknown) => caught);
  };
  const message = '[svc-sdk] the proxy, ca, cert and key options (and a proxy from the environment) need the undici package, an optional peer of svc-sdk: npm install undici';

  it("a proxy's call is an UndiciMismatchError naming the install of the runtime's undici major, the import's failure its cause", async () => {
    useRuntime({ undici: '7.16.0' });
    const error = await call();
    expect(error).toBeInstanceOf(UndiciMismatchError);
    expect((error as Error).message).toBe(`${message}@7`);
    // The failed import (vitest wraps the mock's throw in an error of its own).
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('off Node (no runtime undici), the install names no major', async () => {
    useRuntime({ undici: undefined });
    expect(((await call()) as Error).message).toBe(message);
  });
});
