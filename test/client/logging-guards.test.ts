// Logging never changes a call's outcome: a logger that throws, or returns a rejected promise, is
// ignored; SVC_LOG is read in any case, a bad one is warned about once per process and quoted
// safely; URLs in log lines carry no credentials and no secret-looking query values.
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, InternalServerError, type Logger, type LogLevel } from '../../src/index.node.js';
import { loggedUrl } from '../../src/core/logger.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';

const server = useMockService();
const requests = recordRequests(server);
const ROOMS = `${BASE_URL}/api/v1/rooms`;
const roomParams = { name: 'VDR', room_type: 'company_investment' };

/** A logger whose every method fails the way `fail` says, counting its calls. */
function failingLogger(fail: () => unknown) {
  const calls: string[] = [];
  const method = (level: string) => () => {
    calls.push(level);
    return fail();
  };
  const logger = { debug: method('debug'), info: method('info'), warn: method('warn'), error: method('error') } as unknown as Logger;
  return { logger, calls };
}

function recorder() {
  const lines: Array<{ level: string; message: string; details: unknown[] }> = [];
  // Every argument after the message is kept, so a test can tell "no details" from "undefined details".
  const record = (level: string) => (message: string, ...details: unknown[]) => void lines.push({ level, message, details });
  const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  return { logger, lines };
}

const client = (logger: Logger, logLevel: LogLevel | undefined, maxRetries = 0) => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logger, logLevel, maxRetries });

afterEach(() => {
  vi.unstubAllEnvs();
  requests.length = 0;
});

describe('a logger that fails', () => {
  it('a debug() that throws leaves a stored create (201) a success, sent once', async () => {
    server.use(http.post(ROOMS, () => HttpResponse.json({ success: true, data: { id: 5, name: 'VDR' } }, { status: 201 })));
    const { logger, calls } = failingLogger(() => {
      throw new Error('log sink down');
    });
    await expect(client(logger, 'debug').rooms.create(roomParams)).resolves.toMatchObject({ id: 5 });
    expect(calls).toEqual(['debug']);
    expect(requests).toHaveLength(1);
  });

  it('an info() that throws (each retry, the give-up) leaves the InternalServerError of a call that gave up', async () => {
    server.use(http.get(ROOMS, () => HttpResponse.json({ error: 'down' }, { status: 500 })));
    const { logger, calls } = failingLogger(() => {
      throw new TypeError('logger broke');
    });
    const error = await client(logger, 'info', 1).request({ method: 'GET', path: '/rooms' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(calls).toEqual(['info', 'info']);
  });

  it('a logger returning a rejected promise causes no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      server.use(http.get(ROOMS, () => HttpResponse.json({ error: 'down' }, { status: 503, headers: { 'retry-after': '0' } })));
      const { logger, calls } = failingLogger(() => Promise.reject(new Error('async sink down')));
      await expect(client(logger, 'debug', 1).request({ method: 'GET', path: '/rooms' })).rejects.toBeInstanceOf(InternalServerError);
      expect(calls).toEqual(['debug', 'info', 'debug', 'info']);
      // Unhandled rejections are reported after the microtask queue drains: give them a few turns.
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('SVC_LOG', () => {
  it.each(['DEBUG', 'Debug', ' debug '])('%j sets the level debug', async (value) => {
    vi.stubEnv('SVC_LOG', value);
    server.use(http.get(ROOMS, () => HttpResponse.json([])));
    const { logger, lines } = recorder();
    await client(logger, undefined).request({ method: 'GET', path: '/rooms' });
    expect(lines.map(({ level }) => level)).toEqual(['debug']);
  });

  it('a bad value is not looked at when logLevel is passed', () => {
    vi.stubEnv('SVC_LOG', 'loud');
    const { logger, lines } = recorder();
    client(logger, 'warn');
    expect(lines).toEqual([]);
  });

  it('a bad value is warned about once per process, its control characters escaped', () => {
    vi.stubEnv('SVC_LOG', 'loud\u001b[2J\n');
    const first = recorder();
    const second = recorder();
    client(first.logger, undefined);
    client(second.logger, undefined);
    expect(first.lines.map(({ message }) => message)).toEqual([
      "[svc-sdk] SVC_LOG must be one of 'debug', 'info', 'warn', 'error' or 'off' (got 'loud\\u001b[2J\\n'): logging at 'warn'",
    ]);
    expect(first.lines[0]!.details).toEqual([]); // the message alone: no fields object
    expect(second.lines).toEqual([]);
  });
});

describe('URLs in log lines', () => {
  it('the values of secret-looking query parameters are redacted at debug and info; others are kept', async () => {
    let calls = 0;
    server.use(http.get(ROOMS, () => (++calls === 1 ? HttpResponse.json({}, { status: 503, headers: { 'retry-after': '0' } }) : HttpResponse.json([]))));
    const { logger, lines } = recorder();
    const query = { token: 'tok_123', api_key: 'k_456', Signature: 'sig_789', password: 'pw_0', x_auth: 'a_1', secret_id: 's_2', page: 2, q: 'deal' };
    await client(logger, 'debug', 1).request({ method: 'GET', path: '/rooms', query });
    expect(lines.map(({ level }) => level)).toEqual(['debug', 'info', 'debug']);
    const expected = `${ROOMS}?token=[redacted]&api_key=[redacted]&Signature=[redacted]&password=[redacted]&x_auth=[redacted]&secret_id=[redacted]&page=2&q=deal`;
    for (const { message, details } of lines) {
      expect(message).toContain(` ${expected}`);
      expect((details[0] as { url: string }).url).toBe(expected);
      for (const value of ['tok_123', 'k_456', 'sig_789', 'pw_0', 'a_1', 's_2']) expect(message).not.toContain(value);
    }
    // The request itself carried the real values.
    expect(new URL(requests[0]!.url).searchParams.get('token')).toBe('tok_123');
  });

  it('credentials in a logged URL are shown as [redacted]', () => {
    expect(loggedUrl('https://user:pa55@svc.test/api/v1/rooms?page=2')).toBe('https://[redacted]:[redacted]@svc.test/api/v1/rooms?page=2');
    expect(loggedUrl('https://svc.test/api/v1/rooms')).toBe('https://svc.test/api/v1/rooms');
  });
});
