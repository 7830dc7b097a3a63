import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { APIConnectionError, Client } from '../../src/index.node.js';
import { useRuntime } from '../support/runtime.js';
import { freePort } from '../webhooks/redis-server.js';

// Where undici's package.json cannot be read (a bundle that inlined undici and left its manifest out), the installed
// undici's version is unknown: a dispatcher of it is taken as given, as one from another copy of undici is, rather than
// refused for a version mismatch nobody can see. The manifest of the undici the SDK imports (the root's).
vi.mock('../../node_modules/undici/package.json', () => {
  throw new Error("Cannot find module 'undici/package.json'");
});
const { Agent } = createRequire(new URL('../../src/core/transport-node.ts', import.meta.url))('undici') as typeof import('undici');

describe("without undici's package.json", () => {
  it("a dispatcher of the installed undici, under a runtime whose fetch is another major, is taken as given", async () => {
    useRuntime({ undici: '6.21.3' });
    const client = new Client({ apiKey: 'vdr_manifest_unreadable', baseUrl: `https://127.0.0.1:${await freePort()}`, maxRetries: 0, dispatcher: new Agent() });
    const error = await client.webhooks.list().then(() => undefined, (caught: unknown) => caught);
    // Refused by the closed port, not by the SDK: the call went out through the dispatcher.
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toContain('(route: through the dispatcher option; trust: what the dispatcher option trusts)');
  });
});
