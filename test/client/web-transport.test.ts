// The web entry (browsers, workerd, other runtimes whose fetch has its own proxy and trust settings):
// the Client options only Node's transport reads are refused at `new Client()`, by name, and its
// bundle carries none of Node's proxy rules. This file imports src/index.ts alone, so the node
// entry's registration (transport-settings-node.ts) never runs in it.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it, vi } from 'vitest';
import { Client, ValidationError } from '../../src/index.js';
import { API_KEY } from '../support/msw.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('the web entry and the Node-only network options', () => {
  it.each([
    ['proxy', { proxy: 'http://proxy.example:3128' }],
    ['proxy', { proxy: false }],
    ['ca', { ca: PEM }],
    ['dispatcher', { dispatcher: { dispatch() {} } }],
  ] as const)('%s is refused at new Client(), named, with what applies instead', (name, option) => {
    let caught: unknown;
    try {
      new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', ...option });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).issues).toEqual([
      { path: [name], message: `${name} is a Node option: in this runtime, its fetch's own proxy and trust settings apply; leave it out` },
    ]);
  });

  it('each one given is named (cert and key for mutual TLS, both)', () => {
    expect(() => new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', cert: PEM, key: PEM })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: ['cert'] }), expect.objectContaining({ path: ['key'] })] }),
    );
  });

  it("a client without them calls through the runtime fetch, and its failures name no route, whatever Node's proxy variables say", async () => {
    // Under the node entry these make an error say `route: through the environment's proxy (Node's NODE_USE_ENV_PROXY)`.
    vi.stubEnv('HTTPS_PROXY', 'http://proxy.example:3128');
    vi.stubEnv('NODE_USE_ENV_PROXY', '1');
    const client = new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', maxRetries: 0, fetch: async () => Promise.reject(new TypeError('fetch failed')) });
    const error = await client.webhooks.list().catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).not.toMatch(/route:/);
    vi.unstubAllEnvs();
  });

  it("the web entry's bundle carries none of Node's proxy rules (NODE_USE_ENV_PROXY, NO_PROXY, the ca checks)", async () => {
    const result = await build({
      stdin: { contents: `export { Client } from ${JSON.stringify(join(root, 'src/index.ts'))};`, resolveDir: root, loader: 'js' },
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'error',
    });
    const text = result.outputFiles[0]!.text;
    for (const word of ['NODE_USE_ENV_PROXY', 'NO_PROXY', 'HTTPS_PROXY', 'ca must be PEM']) expect(text).not.toContain(word);
    // The refusal is there: the bundle names the options it refuses.
    expect(text).toContain('is a Node option');
  });
});
