// What the core tells an upload's body while it is built (BodyCall): the call's method, URL, signal
// and timeout, the client's timeout when the call sets none. A stream whose first chunk never comes
// is then bounded by them, and nothing is sent.
import { describe, expect, it } from 'vitest';
import { APITimeoutError, APIUserAbortError, Client } from '../../src/index.node.js';
import { API_KEY } from '../support/msw.js';

/** A stream whose first chunk never comes. */
const silent = () => new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => {}) });

describe("an upload's body waits within its call", () => {
  it("the client's timeout bounds the wait for a stream's first chunk when the call sets none", async () => {
    let sent = 0;
    const client = new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', timeout: 100, maxRetries: 0, fetch: async () => (sent++, new Response('{}')) });
    const started = performance.now();
    const error = await client.documents.upload(4, silent(), { filename: 'memo.txt' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe('POST /api/v1/rooms/4/documents timed out after 100 ms: raise `timeout` or try again');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(sent).toBe(0);
  });

  it("the call's own timeout and signal bound it too", async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', timeout: 60_000, maxRetries: 0, fetch: async () => new Response('{}') });
    const timedOut = await client.documents.upload(4, silent(), { filename: 'memo.txt', timeout: 50 }).catch((caught: unknown) => caught);
    expect((timedOut as Error).message).toBe('POST /api/v1/rooms/4/documents timed out after 50 ms: raise `timeout` or try again');
    const cancelled = await client.documents.upload(4, silent(), { filename: 'memo.txt', signal: AbortSignal.abort('not now') }).catch((caught: unknown) => caught);
    expect(cancelled).toBeInstanceOf(APIUserAbortError);
    expect((cancelled as Error).message).toBe("[svc-sdk] POST /api/v1/rooms/4/documents: cancelled by the caller's signal (not now)");
  });
});
