import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  Client,
  ResponseValidationError,
  ValidationError,
  type Logger,
} from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

// Per-call options refused before sending, each named with its rule; several at once in one
// message; and the `name` of each error class (what logs and `String(error)` show).

const server = useMockService();
const sent: string[] = [];
server.events.on('request:start', ({ request }) => {
  sent.push(`${request.method} ${request.url}`);
});
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off' });
const TIMEOUT_RULE = /^timeout must be a whole number of milliseconds from 1 to \d+$/;

async function refused(call: () => Promise<unknown>): Promise<ValidationError> {
  const before = sent.length;
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect(sent.length).toBe(before);
  return error as ValidationError;
}

describe('per-call options are checked before sending', () => {
  it.each([
    ['maxRetries: -1', { maxRetries: -1 }, 'maxRetries must be a whole number, 0 or more'],
    ['maxRetries: 1.5', { maxRetries: 1.5 }, 'maxRetries must be a whole number, 0 or more'],
    ['maxPages: 0', { maxPages: 0 }, 'maxPages must be a whole number, 1 or more'],
    ['headers: an array', { headers: [['x-a', 'b']] }, 'headers must be an object of header names to string values'],
    ['headers: null', { headers: null }, 'headers must be an object of header names to string values'],
    ['headers: a string', { headers: 'x-a: b' }, 'headers must be an object of header names to string values'],
    ['signal: not an AbortSignal', { signal: { aborted: false } }, 'signal must be an AbortSignal, such as AbortSignal.timeout(5_000)'],
  ])('%s', async (_, options, rule) => {
    const error = await refused(() => client.transactions.list({ deal_id: 1 }, options as never));
    expect(error.message).toBe(`[svc-sdk] transactions.list: ${rule}. Nothing was sent.`);
    expect(error.issues).toEqual([expect.objectContaining({ path: [Object.keys(options)[0]], message: rule })]);
  });

  it('timeout: 0 names the allowed range', async () => {
    const error = await refused(() => client.transactions.list({ deal_id: 1 }, { timeout: 0 }));
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]!.path).toEqual(['timeout']);
    expect(error.issues[0]!.message).toMatch(TIMEOUT_RULE);
  });

  it('several bad options are reported in one message, separated by "; "', async () => {
    const error = await refused(() => client.transactions.list({ deal_id: 1 }, { maxRetries: -1, maxPages: 0 }));
    expect(error.message).toBe(
      '[svc-sdk] transactions.list: maxRetries must be a whole number, 0 or more; maxPages must be a whole number, 1 or more. Nothing was sent.',
    );
  });

  it('maxPages: 1 is allowed (reads the first page only)', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.json({ success: true, data: [{ id: 1 }] })));
    expect(await client.transactions.list({ deal_id: 1 }, { maxPages: 1 })).toEqual([{ id: 1 }]);
  });

  it('a logger without all of console\'s methods is refused, naming the four it needs', () => {
    const partial = { info: () => undefined, warn: () => undefined } as unknown as Logger;
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logger: partial })).toThrow(
      expect.objectContaining({ name: 'ValidationError', issues: [expect.objectContaining({ path: ['logger'], message: 'logger must have debug, info, warn and error methods, as console does' })] }),
    );
  });
});

describe("each error class's name", () => {
  it('ValidationError', async () => {
    expect((await refused(() => client.transactions.list({ deal_id: 0 }))).name).toBe('ValidationError');
  });

  it('ResponseValidationError', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.json({ success: true, data: [{ id: 'x' }] })));
    const error = await client.transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).name).toBe('ResponseValidationError');
  });

  it('APIConnectionError, whose default message says the service could not be reached', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.error()));
    const error = await client.transactions.list({ deal_id: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).name).toBe('APIConnectionError');
    expect((error as Error).message).toBe('GET /api/v1/svc/transactions?deal_id=1 failed: could not reach svc.test:443');
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('APITimeoutError', async () => {
    server.use(
      http.get(`${BASE_URL}/api/v1/svc/transactions`, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        return HttpResponse.json({ success: true, data: [] });
      }),
    );
    const error = await client.transactions.list({ deal_id: 1 }, { timeout: 100 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).name).toBe('APITimeoutError');
  });
});
