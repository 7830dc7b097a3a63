// Aborts and refusals named for what they are, on real sockets: the caller's cancel is an
// APIUserAbortError (not a connection failure a retry loop would retry), a caller's
// AbortSignal.timeout() is told apart from the SDK's own timeout, a port fetch refuses to dial says so,
// and a connection closed while the request was being sent says the service was reached.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APIConnectionError, APITimeoutError, APIUserAbortError, Client, SvcError } from '../../src/index.node.js';
import { failure } from '../support/failure.js';
import { sendJson, useLoopbackServer } from '../support/loopback.js';
import { API_KEY } from '../support/msw.js';

const service = useLoopbackServer();
const client = (options: { maxRetries?: number; timeout?: number } = {}) => new Client({ apiKey: API_KEY, baseUrl: service.url, maxRetries: 0, logLevel: 'off', ...options });
const roomParams = { name: 'VDR', room_type: 'company_investment' };
const stall = () => undefined; // never answers

/** Resolves once the server has heard `count` requests. */
async function arrived(count: number): Promise<void> {
  while (service.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

describe("the caller's cancel", () => {
  it.each([
    ['abort()', () => new AbortController(), (controller: AbortController) => controller.abort(), 'AbortError: This operation was aborted'],
    ['abort(reason string)', () => new AbortController(), (controller: AbortController) => controller.abort('the user left the page'), 'the user left the page'],
    ['abort(reason Error)', () => new AbortController(), (controller: AbortController) => controller.abort(new RangeError('shutting down')), 'RangeError: shutting down'],
  ])('%s is an APIUserAbortError, not an APIConnectionError, its message carrying the reason', async (_name, make, abort, reason) => {
    service.handle(stall);
    const controller = make();
    const pending = failure(client({ maxRetries: 2 }).webhooks.retrieve(3, { signal: controller.signal }));
    await arrived(1);
    abort(controller);
    const error = await pending;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).name).toBe('APIUserAbortError');
    expect(error).toBeInstanceOf(SvcError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe(`[svc-sdk] GET /api/v1/webhooks/3/: cancelled by the caller's signal (${reason})`);
    expect((error as APIUserAbortError).reason).toBe(controller.signal.reason);
    expect((error as APIUserAbortError).cause).toBe(controller.signal.reason);
    expect(service.requests).toHaveLength(1); // a cancel is never retried
  });

  it('a signal aborted before the call sends nothing', async () => {
    service.handle((_request, response) => sendJson(response, 200, { id: 3 }));
    const error = await failure(client().webhooks.retrieve(3, { signal: AbortSignal.abort('not now') }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).message).toContain('(not now)');
    expect(service.requests).toHaveLength(0);
  });

  it.each([
    ['a number', 42, '42'],
    ['a reason of exactly 200 characters, whole', 'r'.repeat(200), 'r'.repeat(200)],
    ['a longer one, cut at 200 characters', 'r'.repeat(201), `${'r'.repeat(200)}…`],
    ['an Error whose text is long, cut too', new Error('e'.repeat(300)), `Error: ${'e'.repeat(193)}…`],
    ['a reason whose toString throws, named by its type', { toString: () => { throw new Error('no'); } }, 'object'],
  ])('the reason in the message: %s', async (_name, reason, shown) => {
    service.handle((_request, response) => sendJson(response, 200, { id: 3 }));
    const error = await failure(client().webhooks.retrieve(3, { signal: AbortSignal.abort(reason) }));
    expect((error as Error).message).toBe(`[svc-sdk] GET /api/v1/webhooks/3/: cancelled by the caller's signal (${shown})`);
    expect((error as APIUserAbortError).reason).toBe(reason);
  });

  it('a cancel during the wait between retries is an APIUserAbortError too', async () => {
    service.handle((_request, response) => sendJson(response, 503, { error: 'busy' }, { 'retry-after': '5' }));
    const controller = new AbortController();
    const pending = failure(client({ maxRetries: 2 }).webhooks.retrieve(3, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    const error = await pending;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(service.requests).toHaveLength(1);
  });

  it("a caller's AbortSignal.timeout() is an APIUserAbortError whose reason is a TimeoutError; the SDK's own timeout is an APITimeoutError", async () => {
    service.handle(stall);
    const callers = await failure(client({ timeout: 5_000 }).webhooks.retrieve(3, { signal: AbortSignal.timeout(50) }));
    expect(callers).toBeInstanceOf(APIUserAbortError);
    expect(((callers as APIUserAbortError).reason as Error).name).toBe('TimeoutError');
    expect((callers as Error).message).toMatch(/cancelled by the caller's signal \(TimeoutError: /);
    const own = await failure(client({ timeout: 50 }).webhooks.retrieve(3, { signal: AbortSignal.timeout(5_000) }));
    expect(own).toBeInstanceOf(APITimeoutError);
    expect(own).not.toBeInstanceOf(APIUserAbortError);
    expect((own as Error).message).toBe('GET /api/v1/webhooks/3/ timed out after 50 ms: raise `timeout` or try again');
  });
});

describe('refusals named for what they are', () => {
  it.each([1, 6000, 6665, 6669])('port %i, which fetch refuses to dial, says so with the fix', async (port) => {
    const error = await failure(new Client({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 }).rooms.create(roomParams));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe(
      `POST /api/v1/rooms failed: fetch refuses to connect to port ${port} (a "bad port" of the Fetch standard, kept for other protocols: 1, 6000, 6665–6669 and more), ` +
        'so nothing was sent: serve the service on another port, such as 8080',
    );
  });

  describe('a connection closed while the request body was being sent', () => {
    let server: Server;
    let url = '';
    beforeAll(async () => {
      // Reads the first chunk of the body, then closes the connection: the service was reached.
      server = createServer((request) => request.once('data', () => request.socket.destroy()));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('is worded as such, not as "could not reach"', async () => {
      const upload = new Client({ apiKey: API_KEY, baseUrl: url, maxRetries: 0 });
      const error = await failure(upload.documents.upload(7, new Uint8Array(8 * 1024 * 1024), { filename: 'big.bin' }));
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).message).toMatch(
        /^POST \/api\/v1\/rooms\/7\/documents failed: the connection closed while the request was being sent, before any answer \((?:ECONNRESET|EPIPE|UND_ERR_SOCKET)\): the service was reached$/,
      );
      expect((error as Error).message).not.toContain('could not reach');
    });
  });

  it('a connection closed before any answer to a request without a body says the service was reached', async () => {
    const closing = createServer((request) => request.socket.destroy());
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    const { port } = closing.address() as AddressInfo;
    try {
      const error = await failure(new Client({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 }).webhooks.retrieve(3));
      expect(error).toBeInstanceOf(APIConnectionError);
      expect((error as Error).message).toMatch(/^GET \/api\/v1\/webhooks\/3\/ failed: the connection closed before an answer \((?:ECONNRESET|UND_ERR_SOCKET)\): the service was reached$/);
    } finally {
      closing.closeAllConnections();
      await new Promise((resolve) => closing.close(resolve));
    }
  });

  it('a refused connection still says it could not reach the host', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(new Client({ apiKey: API_KEY, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 }).rooms.create(roomParams));
    expect((error as Error).message).toBe(`POST /api/v1/rooms failed: could not reach 127.0.0.1:${port} (ECONNREFUSED)`);
  });
});
