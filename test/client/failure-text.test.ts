// How a failure is shown (the redaction rule and a message's words, src/core/failure-text.ts) is a
// chunk loaded after the app's first page. A call waits for it before it names its failure, so its
// error says all it should even when the chunk is slow. Where it cannot load (a deployment that no
// longer serves it), errors say less and hide more, never a secret: the URL's query and user info
// hidden whole, the body withheld, no service words. Here the chunk's loader is slow, or fails as a
// browser's does, over a real loopback service.
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closedPort } from '../cli/support.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY } from '../support/msw.js';

const service = useLoopbackServer();
const PART = '../../src/core/failure-text.js';
const CHUNK_FAILED = 'Failed to fetch dynamically imported module: https://app.example/assets/failure-text-4f2a.js';
// A refusal whose body holds a credential, as a misbehaving upstream's might.
const REFUSAL = { error: 'deal 1 is archived', token: 'vdr_leaked_in_a_body_0123456789' };

afterEach(() => {
  vi.doUnmock(PART);
  vi.resetModules();
});

/** A fresh SDK whose failure-text chunk loads as `factory` says. */
async function sdkWith(factory: () => Promise<unknown> | never) {
  vi.resetModules();
  vi.doMock(PART, factory);
  return import('../../src/index.node.js');
}

/** Everything an error shows: its message, its fields, its inspection and JSON. */
function shown(error: unknown): string {
  const { message, url, body } = error as { message: string; url: string; body: unknown };
  return [message, url, JSON.stringify(body), inspect(error, { depth: 5 }), JSON.stringify(error)].join('\n');
}

describe('a failure-text chunk that cannot load', () => {
  const failing = () => {
    throw new TypeError(CHUNK_FAILED);
  };

  it('an error answer says less and hides more: the query hidden whole, the body withheld, no secret', async () => {
    const sdk = await sdkWith(failing);
    service.handle((_request, response) => sendJson(response, 404, REFUSAL));
    const client = new sdk.Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0 });
    const error = await client.transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.NotFoundError);
    expect((error as Error).message).toBe('GET /api/v1/svc/transactions?[redacted] failed with 404');
    expect((error as { body: unknown }).body).toBe('[redacted]');
    expect((error as { url: string }).url).toBe(`${service.url}/api/v1/svc/transactions?[redacted]`);
    expect(shown(error)).not.toContain('vdr_');
    expect(shown(error)).not.toContain('deal_id=1');
  });

  it('a connection refused names no host, and a cancel no reason: the words are in the chunk', async () => {
    const sdk = await sdkWith(failing);
    const port = await closedPort();
    const client = new sdk.Client({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const refused = await client.transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(sdk.APIConnectionError);
    expect((refused as Error).message).toMatch(/^GET \/api\/v1\/svc\/transactions\?\[redacted\] failed: /);
    expect((refused as Error).message).not.toContain(String(port));
    expect((refused as Error).message).not.toContain('127.0.0.1');
    const cancelled = new sdk.APIUserAbortError('GET', `${service.url}/api/v1/rooms`, new Error('the user went away'));
    expect(cancelled.message).toBe("[svc-sdk] GET /api/v1/rooms: cancelled by the caller's signal (Error)");
    // Made by hand, an unreached host is "the service": its name and port are words of the chunk too.
    expect(new sdk.APIConnectionError('GET', `${service.url}/api/v1/rooms`).message).toBe('GET /api/v1/rooms failed: could not reach the service');
    // A URL's user info is hidden whole too, as its query and fragment.
    const made = new sdk.APIConnectionError('GET', 'https://svc:hunter2@api.example/api/v1/rooms?page=2#top');
    expect(made.url).toBe('https://[redacted]@api.example/api/v1/rooms?[redacted]');
    expect(shown(made)).not.toContain('hunter2');
    // Only a URL's own user info: a path that holds `scheme://name@` further on is kept as it is.
    expect(new sdk.APIConnectionError('GET', 'https://api.example/api/v1/files/s3://bucket@eu').url).toBe('https://api.example/api/v1/files/s3://bucket@eu');
  });

  it('a body is withheld whole when it is text or data, and kept when nothing in it can be a secret', async () => {
    const sdk = await sdkWith(failing);
    const made = (body: unknown) => sdk.APIError.generate({ status: 502, body, headers: new Headers({ 'content-type': 'text/html' }), method: 'GET', url: `${service.url}/api/v1/rooms` });
    expect(made('<html>token=vdr_leaked_in_a_page_0123456789</html>').body).toBe('[redacted]');
    expect(made({ detail: 'x' }).body).toBe('[redacted]');
    expect(made([1, 2]).body).toBe('[redacted]');
    expect(made(null).body).toBeNull();
    expect(made(42).body).toBe(42);
    expect(made(undefined).body).toBeUndefined();
    expect(made('<html>').message).toBe('GET /api/v1/rooms failed with 502');
  });
});

describe('a slow failure-text chunk', () => {
  it('a call waits for it before naming its failure: the full text, the rule applied', async () => {
    const sdk = await sdkWith(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return vi.importActual(PART);
    });
    service.handle((_request, response) => sendJson(response, 404, REFUSAL));
    const client = new sdk.Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0 });
    const error = await client.transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('GET /api/v1/svc/transactions?deal_id=1 failed with 404: deal 1 is archived');
    expect((error as { body: unknown }).body).toEqual({ error: 'deal 1 is archived', token: '[redacted]' });
    expect(shown(error)).not.toContain('vdr_');
  });
});
