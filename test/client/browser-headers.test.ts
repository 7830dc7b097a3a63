// The SDK's own headers in a browser. Which runtime this is comes from src/shared/runtime.ts:
// the wire tests stub its record (test/support/runtime.ts), and detectRuntime is checked on globals.
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { Client } from '../../src/index.js';
import { detectRuntime } from '../../src/shared/runtime.js';
import { API_KEY } from '../support/msw.js';
import { useRuntime } from '../support/runtime.js';

const VERSION = packageJson.version;

/** The headers of one `rooms.create` made by a new Client. */
async function headersSent(): Promise<Headers> {
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
  it('a browser gets x-svc-sdk-version, and its User-Agent is left to the browser', async () => {
    useRuntime({ browser: true, browserPage: true });
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

describe('detectRuntime', () => {
  it('a page (window and document) is a browser page and a browser', () => {
    expect(detectRuntime({ window: {}, document: {} })).toMatchObject({ browserPage: true, browser: true });
  });

  it('a window without a document (Deno 1 defines one) or a document without a window (a server-side shim) is no page, and no Node', () => {
    expect(detectRuntime({ window: {} })).toMatchObject({ browserPage: false, browser: false, nodeFetch: false });
    expect(detectRuntime({ document: {} })).toMatchObject({ browserPage: false, browser: true, nodeFetch: false });
  });

  it('a web worker (importScripts, no document) is a browser, not a page', () => {
    expect(detectRuntime({ importScripts: () => {} })).toMatchObject({ browserPage: false, browser: true });
  });

  it('Node is Node\'s fetch; Bun and Deno, which define process.versions.node too, are not', () => {
    const process = { versions: { node: '24.0.0' } };
    expect(detectRuntime({ process })).toMatchObject({ nodeFetch: true, browser: false, browserPage: false, node: '24.0.0' });
    expect(detectRuntime({}).node).toBeUndefined();
    expect(detectRuntime({ process, Bun: {} })).toMatchObject({ nodeFetch: false, node: '24.0.0' });
    expect(detectRuntime({ process, Deno: {} })).toMatchObject({ nodeFetch: false, node: '24.0.0' });
  });

  it('this test process is Node', () => {
    expect(detectRuntime()).toEqual({ browserPage: false, browser: false, nodeFetch: true, workerd: false, undici: process.versions.undici, node: process.versions.node });
  });
});
