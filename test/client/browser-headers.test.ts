// The SDK's own headers in a browser page. The page's runtime is decided when the module loads,
// so each test stubs the globals first and imports the SDK afresh.
import { afterEach, describe, expect, it, vi } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { API_KEY } from '../support/msw.js';

const VERSION = packageJson.version;

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** The headers of one `rooms.create` made by a Client loaded with the globals as they are now. */
async function headersSent(): Promise<Headers> {
  vi.resetModules();
  const { Client } = await import('../../src/index.js');
  let sent: Headers | undefined;
  const client = new Client({
    apiKey: API_KEY,
    baseUrl: 'https://svc.test',
    dangerouslyAllowBrowser: true,
    fetch: async (_input, init) => {
      sent = new Headers(init?.headers);
      return Response.json({ success: true, data: { id: 9, name: 'r' } }, { status: 201 });
    },
  });
  await client.rooms.create({ name: 'r', room_type: 'company_investment' });
  return sent!;
}

describe('the SDK version header', () => {
  it('a browser page gets x-svc-sdk-version, and its User-Agent is left to the browser', async () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    const headers = await headersSent();
    expect(headers.get('x-svc-sdk-version')).toBe(VERSION);
    expect(headers.get('user-agent')).toBeNull();
  });

  it('a web worker (importScripts, no document) is a browser too', async () => {
    vi.stubGlobal('importScripts', () => {});
    const headers = await headersSent();
    expect(headers.get('x-svc-sdk-version')).toBe(VERSION);
    expect(headers.get('user-agent')).toBeNull();
  });

  it('a server runtime names the SDK in User-Agent as well', async () => {
    const headers = await headersSent();
    expect(headers.get('x-svc-sdk-version')).toBe(VERSION);
    expect(headers.get('user-agent')).toBe(`svc-sdk/${VERSION}`);
  });
});
