// `svc-sdk listen` run in process (test/cli/support.ts), at its edges: a delivery before the
// registration's secret is known, a taken port, --events lists it refuses, and a registration refused
// in ways the --public-url hint does not fit. The main flow: listen.test.ts; attacks: listen-hostile.test.ts.
import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_KINDS } from '../../src/webhooks/index.node.js';
import { closedPort, run, start, startEmulator } from './support.js';

async function serve(handler: (request: import('node:http').IncomingMessage, response: ServerResponse) => void) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('svc-sdk listen at its edges', () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await startEmulator();
    env = { SVC_BASE_URL: emulator.baseUrl, SVC_API_KEY: emulator.apiKey };
  });
  afterAll(async () => {
    expect(await emulator.stop()).toBe(0);
  });

  it('answers a delivery that arrives before the registration\'s secret is known 500 no_secret, so the service tries again', async () => {
    // A proxy in front of the emulator holds the registration's answer while the test posts to the listener.
    let release: () => void = () => undefined;
    let arrived!: () => void;
    const createArrived = new Promise<void>((resolve) => (arrived = resolve));
    const proxy = await serve((req, res) => {
      const forward = () => {
        const upstream = httpRequest(`${emulator.baseUrl}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        });
        req.pipe(upstream);
      };
      if (req.method === 'POST') {
        release = forward;
        arrived();
      } else forward();
    });
    const port = await closedPort();
    const listen = start(['listen', '--forward-to', 'http://127.0.0.1:9/hook', '--port', String(port)], { ...env, SVC_BASE_URL: proxy.url });
    try {
      await createArrived;
      const early = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'x-svc-signature': 'sha256=00' }, body: '{}' });
      expect([early.status, await early.json()]).toEqual([500, { error: 'no_secret' }]);
      expect(listen.stdout()).toBe('refused a delivery: no_secret → 500\n');
      release();
      await listen.waitFor(new RegExp(`delivers every event kind to http://127\\.0\\.0\\.1:${port}/$`, 'm'));
    } finally {
      expect(await listen.stop()).toBe(0);
      await proxy.close();
    }
  });

  it('exits 2 naming the fix when --port is taken, and registers nothing', async () => {
    const taken = await serve((_, res) => res.end());
    try {
      const { port } = new URL(taken.url);
      expect(await run(['listen', '--forward-to', 'http://127.0.0.1:9/', '--port', port], env)).toEqual({
        code: 2,
        stdout: '',
        stderr: `[svc-sdk] port ${port} is in use: pick another with --port\n`,
      });
    } finally {
      await taken.close();
    }
  });

  it.each([
    [' , ', ''],
    ['credit.low,zzz', '; unknown: zzz'],
    ['zzz, credit.lw', '; unknown: zzz, credit.lw (did you mean "credit.low"?)'],
    ['credit.lw,job.faild', '; unknown: credit.lw, job.faild (did you mean "credit.low"? did you mean "job.failed"?)'],
  ])('--events %j exits 2 listing what it does not know', async (events, unknown) => {
    expect(await run(['listen', '--forward-to', 'http://127.0.0.1:9/', '--events', events], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: `[svc-sdk] --events takes event kinds separated by commas${unknown}: use any of ${WEBHOOK_EVENT_KINDS.join(', ')}\n`,
    });
  });

  it('takes --events with spaces and empty items, and subscribes to those kinds', async () => {
    const listen = start(['listen', '--forward-to', 'http://127.0.0.1:9/', '--events', ' job.failed ,,ping.test'], env);
    try {
      await listen.waitFor(/delivers job\.failed, ping\.test to /);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus' (svc-sdk listen --help)"],
    [['--public-url', 'ftp://h/'], '--public-url "ftp://h/" must be an http:// or https:// URL, not ftp://, such as https://abc.ngrok.app/'],
    [['--port', '65536'], '--port must be a whole number from 0 to 65535, got "65536"'],
  ])('%j exits 2: %s', async (args, message) => {
    expect(await run(['listen', '--forward-to', 'http://127.0.0.1:9/', ...args], env)).toEqual({ code: 2, stdout: '', stderr: `[svc-sdk] ${message}\n` });
  });

  it.each(['http://alice@127.0.0.1:1', 'http://:pw@127.0.0.1:1'])('refuses an SVC_BASE_URL with a user or a password alone (%s)', async (base) => {
    const result = await run(['listen', '--forward-to', 'http://127.0.0.1:9/'], { ...env, SVC_BASE_URL: base });
    expect(result).toEqual({ code: 2, stdout: '', stderr: '[svc-sdk] SVC_BASE_URL carries a user:password@, which requests to the service cannot: remove it (the API key goes in SVC_API_KEY)\n' });
  });

  it('an SVC_BASE_URL that is not a URL is the Client\'s one-line error, exit 1', async () => {
    const result = await run(['listen', '--forward-to', 'http://127.0.0.1:9/'], { ...env, SVC_BASE_URL: 'not a url' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^\[svc-sdk\] [^\n]*baseUrl[^\n]*\n$/);
  });

  it('a stop after the registration says nothing of a registration in flight', async () => {
    const listen = start(['listen', '--forward-to', 'http://127.0.0.1:9/'], env);
    await listen.waitFor(/^Press Ctrl\+C to stop \(the webhook is deleted\)\.$/m);
    expect(await listen.stop('SIGINT')).toBe(0);
    expect(listen.stdout()).not.toContain('stopping once');
  });

  it('a 4xx refusal keeps the service\'s words, once prefixed, then the tunnel hint', async () => {
    const service = await serve((req, res) => {
      req.resume();
      res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"no"}');
    });
    try {
      const result = await run(['listen', '--forward-to', 'http://127.0.0.1:9/', '--port', '0'], { SVC_BASE_URL: service.url, SVC_API_KEY: 'vdr_x' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^\\[svc-sdk\\] could not register a webhook on ${service.url}: POST /api/v1/webhooks/ failed with 422: no\\. The service cannot deliver to 127\\.0\\.0\\.1: expose port \\d+ through a tunnel`));
    } finally {
      await service.close();
    }
  });

  it.each([
    ['a 500', 500, []],
    ['a 5xx', 503, []],
    ['a 4xx with --public-url', 422, ['--public-url', 'https://abc.tunnel.example/']],
  ])('a registration refused with %s exits 1 without the tunnel hint', async (_, status, extra) => {
    const service = await serve((req, res) => {
      req.resume();
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":"no"}');
    });
    try {
      const result = await run(['listen', '--forward-to', 'http://127.0.0.1:9/', ...extra], { SVC_BASE_URL: service.url, SVC_API_KEY: 'vdr_x' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`^\\[svc-sdk\\] could not register a webhook on ${service.url}: .*${status}.*\\n$`));
      expect(result.stderr).not.toContain('tunnel');
    } finally {
      await service.close();
    }
  });
});
