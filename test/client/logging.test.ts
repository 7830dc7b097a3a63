import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, InternalServerError, ValidationError, type Logger, type LogLevel } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();
const SECRET = 'whsec_never_logged_0123456789';
const TRANSACTIONS = `${BASE_URL}/api/v1/svc/transactions`;

/** A logger that keeps every call: level, message and details. */
function recorder() {
  const lines: Array<{ level: keyof Logger; message: string; details: unknown[] }> = [];
  const record = (level: keyof Logger) => (message: string, ...details: unknown[]) => void lines.push({ level, message, details });
  const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  return { logger, lines };
}

function clientWith(logLevel: LogLevel | undefined, logger: Logger, maxRetries = 2) {
  return new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries, logLevel, logger });
}

const flaky = () => {
  let calls = 0;
  return () =>
    ++calls === 1
      ? HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0', 'x-request-id': 'req_1' } })
      : HttpResponse.json({ success: true, data: [{ id: 1 }] }, { headers: { 'x-request-id': 'req_2' } });
};

describe('logging', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('debug logs each attempt with method, URL, status, duration, attempt and request id, and why a retry happens', async () => {
    const { logger, lines } = recorder();
    server.use(http.get(TRANSACTIONS, flaky()));
    await clientWith('debug', logger).transactions.list({ deal_id: 1 });
    const url = `${TRANSACTIONS}?deal_id=1`;
    expect(lines.map(({ level }) => level)).toEqual(['debug', 'info', 'debug']);
    expect(lines[0]!.message).toMatch(new RegExp(`^\\[svc-sdk\\] GET ${url.replace(/[?.]/g, '\\$&')} → 503 in \\d+ ms \\(attempt 1, request id req_1\\)$`));
    expect(lines[0]!.details[0]).toMatchObject({ method: 'GET', url, status: 503, attempt: 1, requestId: 'req_1', durationMs: expect.any(Number) });
    expect(lines[1]!.message).toBe(`[svc-sdk] GET ${url}: attempt 2, because it was answered 503`);
    expect(lines[2]!.details[0]).toMatchObject({ status: 200, attempt: 2, requestId: 'req_2' });
  });

  it('warn (the default) prints nothing for a failure the caller is handed, retried or not', async () => {
    const { logger, lines } = recorder();
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ error: 'down' }, { status: 500 })));
    await expect(clientWith(undefined, logger, 1).transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    await expect(clientWith('warn', logger, 1).transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(lines).toEqual([]);
  });

  it('the default logger (console) prints nothing at all for a retried call that fails', async () => {
    const spies = (['debug', 'info', 'warn', 'error', 'log'] as const).map((method) => vi.spyOn(console, method).mockImplementation(() => {}));
    try {
      server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ error: 'down' }, { status: 503, headers: { 'retry-after': '0' } })));
      const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });
      await expect(client.transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
      expect(spies.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0, 0, 0]);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('info logs each retry and the call that gave up, by its error\'s name and status', async () => {
    const { logger, lines } = recorder();
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ error: 'down' }, { status: 500 })));
    await expect(clientWith('info', logger, 1).transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(lines.map(({ level }) => level)).toEqual(['info', 'info']);
    expect(lines[1]).toEqual({
      level: 'info',
      message: `[svc-sdk] GET ${TRANSACTIONS}?deal_id=1 gave up after 2 attempts: InternalServerError 500`,
      details: [{ method: 'GET', url: `${TRANSACTIONS}?deal_id=1`, attempts: 2, error: 'InternalServerError', status: 500 }],
    });
  });

  it('a call that succeeds, or fails without a retry, logs nothing at warn', async () => {
    const { logger, lines } = recorder();
    server.use(http.get(TRANSACTIONS, flaky()), http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json({}, { status: 500 })));
    const client = clientWith('warn', logger);
    await client.transactions.list({ deal_id: 1 });
    await expect(client.rooms.create({ name: 'r', room_type: 'x' })).rejects.toBeInstanceOf(InternalServerError);
    expect(lines).toEqual([]);
  });

  it("'off' logs nothing, even a call that gave up", async () => {
    const { logger, lines } = recorder();
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({}, { status: 500 })));
    await expect(clientWith('off', logger, 1).transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(InternalServerError);
    expect(lines).toEqual([]);
  });

  it('SVC_LOG sets the level when logLevel is not passed', async () => {
    vi.stubEnv('SVC_LOG', 'debug');
    const { logger, lines } = recorder();
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json([])));
    await clientWith(undefined, logger).transactions.list({ deal_id: 1 });
    expect(lines.map(({ level }) => level)).toEqual(['debug']);
  });

  it('console is the default logger', async () => {
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    try {
      server.use(http.get(TRANSACTIONS, () => HttpResponse.json([])));
      await new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logLevel: 'debug' }).transactions.list({ deal_id: 1 });
      expect(debug).toHaveBeenCalledTimes(1);
    } finally {
      debug.mockRestore();
    }
  });

  it('an unknown logLevel is a ValidationError; an unknown SVC_LOG is warned about and read as warn', async () => {
    const { logger, lines } = recorder();
    expect(() => clientWith('verbose' as LogLevel, logger)).toThrow(
      new ValidationError('new Client()', [{ path: ['logLevel'], message: "logLevel must be one of 'debug', 'info', 'warn', 'error' or 'off' (got 'verbose')" }]),
    );
    vi.stubEnv('SVC_LOG', 'loud');
    const client = clientWith(undefined, logger);
    expect(lines.map(({ level, message }) => [level, message])).toEqual([
      ['warn', "[svc-sdk] SVC_LOG must be one of 'debug', 'info', 'warn', 'error' or 'off' (got 'loud'): logging at 'warn'"],
    ]);
    // At 'warn', an attempt is not logged.
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json([])));
    await client.transactions.list({ deal_id: 1 });
    expect(lines).toHaveLength(1);
  });

  it('a logger without all of console\'s methods is a ValidationError', () => {
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logger: { warn() {} } as unknown as Logger })).toThrow(
      '[svc-sdk] new Client(): logger must have debug, info, warn and error methods, as console does. Nothing was sent.',
    );
  });

  it('never logs the API key, a webhook secret or a body, even at debug', async () => {
    const { logger, lines } = recorder();
    server.use(
      http.post(`${BASE_URL}/api/v1/webhooks/`, () => HttpResponse.json({ id: 1, secret: SECRET, event_types: null })),
      http.post(`${BASE_URL}/api/v1/webhooks/1/rotate-secret/`, () => HttpResponse.json({ error: `bad ${SECRET}` }, { status: 500 })),
      // A retried call that gives up is logged at info: the service's message (which quotes a secret here) is not.
      http.get(`${BASE_URL}/api/v1/webhooks/1/`, () => HttpResponse.json({ error: `secret ${SECRET} mismatch` }, { status: 500 })),
    );
    const client = clientWith('debug', logger, 1);
    await client.webhooks.create({ url: 'https://example.com/hook-body-marker', name: 'body-marker', event_types: null });
    await client.webhooks.rotateSecret(1).catch(() => undefined);
    await client.webhooks.retrieve(1).catch(() => undefined);
    expect(lines.some((line) => line.message.includes('gave up after 2 attempts'))).toBe(true);
    expect(lines.length).toBeGreaterThan(1);
    const text = JSON.stringify(lines);
    for (const forbidden of [API_KEY, SECRET, 'hook-body-marker', 'body-marker']) expect(text).not.toContain(forbidden);
  });
});
