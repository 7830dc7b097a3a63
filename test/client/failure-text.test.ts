// How a failure is shown (the redaction rule, src/shared/redact.ts, and a message's words, in
// src/core/errors.ts) is one rule, there from the moment the SDK is imported: an error made by hand at
// once (an integrator's test double) and one a call makes later say the same, even when the rule's
// module is slow to load. (svc-sdk 0.4 loaded the failure text behind an import() and stood in with a
// coarser rule until it had: the text of an error depended on whether that import had finished.)
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY } from '../support/msw.js';

const service = useLoopbackServer();
const PART = '../../src/shared/redact.js';
// A refusal whose body holds a credential, as a misbehaving upstream's might.
const REFUSAL = { error: 'deal 1 is archived', token: 'vdr_leaked_in_a_body_0123456789' };

afterEach(() => {
  vi.doUnmock(PART);
  vi.resetModules();
});

/** A fresh SDK whose redaction module takes 200 ms to load. */
async function slowSdk() {
  vi.resetModules();
  vi.doMock(PART, async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return vi.importActual(PART);
  });
  return import('../../src/index.node.js');
}

/** Everything an error shows: its message, its fields, its inspection and JSON. */
function shown(error: unknown): string {
  const { message, url, body } = error as { message: string; url: string; body: unknown };
  return [message, url, JSON.stringify(body), inspect(error, { depth: 5 }), JSON.stringify(error)].join('\n');
}

describe('the one redaction rule, from the first moment', () => {
  it('an error made by hand right after the import: the credential hidden, the rest of the URL kept, the host and the reason named', async () => {
    const sdk = await slowSdk();
    const made = new sdk.APIConnectionError('GET', 'https://svc:hunter2@api.example:8443/api/v1/rooms?page=2&token=vdr_abc0123456789#top');
    expect(made.url).toBe('https://[redacted]:[redacted]@api.example:8443/api/v1/rooms?page=2&token=[redacted]#top');
    expect(made.message).toBe('GET /api/v1/rooms?page=2&token=[redacted] failed: could not reach api.example:8443');
    expect(shown(made)).not.toContain('hunter2');
    expect(shown(made)).not.toContain('vdr_abc');
    const cancelled = new sdk.APIUserAbortError('GET', 'https://api.example/api/v1/rooms', new Error('the user went away'));
    expect(cancelled.message).toBe("[svc-sdk] GET /api/v1/rooms: cancelled by the caller's signal (Error: the user went away)");
  });

  it('a body made by hand at once: its credentials redacted field by field, the service words in the message', async () => {
    const sdk = await slowSdk();
    const made = sdk.APIError.generate({ status: 404, body: REFUSAL, headers: new Headers({ 'content-type': 'application/json' }), method: 'GET', url: 'https://api.example/api/v1/deals/1' });
    expect(made.message).toBe('GET /api/v1/deals/1 failed with 404: deal 1 is archived');
    expect(made.body).toEqual({ error: 'deal 1 is archived', token: '[redacted]' });
    const page = sdk.APIError.generate({ status: 502, body: '<html>x</html>', headers: new Headers({ 'content-type': 'text/html' }), method: 'GET', url: 'https://api.example/api/v1/rooms' });
    expect(page.message).toBe('GET /api/v1/rooms failed with 502: text/html answer of 14 bytes (kept whole on error.body)');
  });

  it("a call's error: the full text, the rule applied", async () => {
    const sdk = await slowSdk();
    service.handle((_request, response) => sendJson(response, 404, REFUSAL));
    const client = new sdk.Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0 });
    const error = await client.transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(sdk.NotFoundError);
    expect((error as Error).message).toBe('GET /api/v1/svc/transactions?deal_id=1 failed with 404: deal 1 is archived');
    expect((error as { body: unknown }).body).toEqual({ error: 'deal 1 is archived', token: '[redacted]' });
    expect(shown(error)).not.toContain('vdr_');
  });
});
