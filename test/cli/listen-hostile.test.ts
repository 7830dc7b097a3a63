// `svc-sdk listen` attacked: a forward URL with credentials, a sender that trickles its body, Ctrl+C while the
// registration is in flight, and a service and an app whose texts carry terminal escape sequences. Each over real
// sockets, against the command run in process (test/cli/support.ts).
import { createHmac } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { closedPort, run, start, startEmulator } from './support.js';

const sign = (body: string, secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Control characters a terminal acts on (newlines excepted: they end the CLI's own lines). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

async function serve(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readAll(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

describe('svc-sdk listen under attack', () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await startEmulator();
    env = { SVC_BASE_URL: emulator.baseUrl, SVC_API_KEY: emulator.apiKey };
  });
  afterAll(async () => {
    expect(await emulator.stop()).toBe(0);
  });
  const emulatorClient = () => new Client({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, maxRetries: 0 });

  it('forwards with the user:password of --forward-to as basic auth and never prints either, on any line', async () => {
    const got: Array<string | undefined> = [];
    const app = await serve(
      createServer(async (req, res) => {
        await readAll(req);
        got.push(req.headers.authorization);
        res.writeHead(200).end();
      }),
    );
    const forwardTo = `${app.url.replace('http://', 'http://alice-id:pw%3As3cret@')}/hook`;
    const listen = start(['listen', '--forward-to', forwardTo, '--events', 'credit.low'], env);
    try {
      await listen.waitFor(/^Forwarding to /m);
      expect(listen.stdout()).toContain(`Forwarding to ${app.url}/hook (with the user and password of --forward-to as basic auth), signed with`);
      const fired = await run(['trigger', 'credit.low'], env);
      const [, deliveryId] = /delivery ([0-9a-f-]{36})/.exec(fired.stdout)!;
      await expect.poll(() => got.length).toBe(1);
      expect(got[0]).toBe(`Basic ${Buffer.from('alice-id:pw:s3cret').toString('base64')}`);
      await expect.poll(() => listen.stdout()).toContain(`credit.low ${deliveryId} attempt 1 → 200 OK · credits 90, low (threshold 100)\n`);
      expect((await emulatorClient().webhooks.list())[0]!.name).not.toMatch(/alice|s3cret/);
    } finally {
      expect(await listen.stop('SIGINT')).toBe(0);
      await app.close();
    }
    expect(listen.stdout() + listen.stderr()).not.toMatch(/alice|s3cret/);
  });

  it('never prints the credentials of --forward-to when the app is down, nor in a misuse message', async () => {
    const port = await closedPort();
    const listen = start(['listen', '--forward-to', `http://alice-id:pw%3As3cret@127.0.0.1:${port}/hook`, '--events', 'job.failed'], env);
    try {
      await listen.waitFor(/^Forwarding to /m);
      await run(['trigger', 'job.failed'], env);
      await expect.poll(() => listen.stdout()).toContain(`→ failed: could not reach http://127.0.0.1:${port}/hook: connection refused`);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
    expect(listen.stdout() + listen.stderr()).not.toMatch(/alice|s3cret/);

    for (const forwardTo of ['ftp://alice-id:pw%3As3cret@127.0.0.1/', 'alice-id:pw%3As3cret@127.0.0.1:3000/', 'http://alice-id:pw%3As3cret@[::1/']) {
      const misuse = await run(['listen', '--forward-to', forwardTo], env);
      expect(misuse.code).toBe(2);
      expect(misuse.stderr).toMatch(/^\[svc-sdk\] --forward-to "\S*\*\*\*@/);
      expect(misuse.stderr + misuse.stdout).not.toMatch(/alice|s3cret/);
    }
    // Nor those of SVC_BASE_URL, which fetch refuses with an error that quotes them.
    const base = await run(['listen', '--forward-to', 'http://127.0.0.1:3000/'], { ...env, SVC_BASE_URL: emulator.baseUrl.replace('http://', 'http://alice-id:pw%3As3cret@') });
    expect(base.code).toBe(2);
    expect(base.stderr).toBe('[svc-sdk] SVC_BASE_URL carries a user:password@, which requests to the service cannot: remove it (the API key goes in SVC_API_KEY)\n');
    expect(await emulatorClient().webhooks.list()).toEqual([]);
  });

  it('answers or drops a sender that sends one byte of its body then falls silent within the listener\'s 10 s, not node:http\'s 60 s', { timeout: 40_000 }, async () => {
    const listen = start(['listen', '--forward-to', 'http://127.0.0.1:9/hook', '--events', 'ping.test'], env);
    try {
      const [, listener] = await listen.waitFor(/ to (http:\/\/127\.0\.0\.1:\d+\/)$/m);
      const { port } = new URL(listener!);
      const socket = connect(Number(port), '127.0.0.1');
      const began = Date.now();
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      socket.write('POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n{');
      const closedAfter = await new Promise<number>((resolve) => {
        socket.on('close', () => resolve(Date.now() - began));
        socket.on('error', () => undefined);
        setTimeout(() => {
          socket.destroy();
          resolve(Infinity);
        }, 30_000);
      });
      expect(closedAfter).toBeGreaterThan(9_000);
      expect(closedAfter).toBeLessThan(13_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });

  it('answers a body over 1 MiB 413 and a GET 405 without forwarding either, and goes on serving', async () => {
    let forwarded = 0;
    const app = await serve(
      createServer((_, res) => {
        forwarded += 1;
        res.writeHead(200).end();
      }),
    );
    const listen = start(['listen', '--forward-to', `${app.url}/hook`, '--events', 'ping.test'], env);
    try {
      const [, listener] = await listen.waitFor(/ to (http:\/\/127\.0\.0\.1:\d+\/)$/m);
      // Each answered as the receiver answers it, from its one table of refusals: status and { error }.
      const large = await fetch(listener!, { method: 'POST', body: new Uint8Array(1024 * 1024 + 1) });
      expect([large.status, await large.json()]).toEqual([413, { error: 'body_too_large' }]);
      const get = await fetch(listener!);
      expect([get.status, await get.json()]).toEqual([405, { error: 'method_not_allowed' }]);
      expect(get.headers.get('allow')).toBe('POST');
      const unsigned = await fetch(listener!, { method: 'POST', body: '{}' });
      expect([unsigned.status, await unsigned.json()]).toEqual([401, { error: 'missing_signature' }]);
      expect(forwarded).toBe(0);
    } finally {
      expect(await listen.stop()).toBe(0);
      await app.close();
    }
  });

  it('forwards a delivery the app takes 12 s to answer: the listener\'s timeout bounds the request, not the app', { timeout: 40_000 }, async () => {
    const app = await serve(
      createServer(async (req, res) => {
        await readAll(req);
        setTimeout(() => res.writeHead(204).end(), 12_000);
      }),
    );
    const listen = start(['listen', '--forward-to', `${app.url}/hook`, '--events', 'ping.test'], env);
    try {
      await listen.waitFor(/^Forwarding to /m);
      const fired = await run(['trigger', 'ping.test'], env);
      const [, deliveryId] = /delivery ([0-9a-f-]{36})/.exec(fired.stdout)!;
      await expect.poll(() => listen.stdout(), { timeout: 20_000 }).toContain(`ping.test ${deliveryId} attempt 1 → 204 No Content\n`);
      await expect.poll(() => emulator.stdout(), { timeout: 5_000 }).toContain(`attempt 1: 204 (${deliveryId})`);
    } finally {
      expect(await listen.stop()).toBe(0);
      await app.close();
    }
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('on %s (Ctrl+C) while the registration is in flight, waits for it and deletes it: the emulator lists no webhook after', async (signal) => {
    // A proxy in front of the emulator holds the registration's answer until the signal was taken.
    let release: () => void = () => undefined;
    let arrived!: () => void;
    const createArrived = new Promise<void>((resolve) => (arrived = resolve));
    const proxy = await serve(
      createServer((req, res) => {
        const forward = () => {
          const upstream = httpRequest(`${emulator.baseUrl}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
            res.writeHead(answer.statusCode!, answer.headers);
            answer.pipe(res);
          });
          req.pipe(upstream);
        };
        if (req.method === 'POST' && req.url === '/api/v1/webhooks/') {
          release = forward;
          arrived();
        } else forward();
      }),
    );
    const listen = start(['listen', '--forward-to', 'http://127.0.0.1:3000/hook'], { ...env, SVC_BASE_URL: proxy.url });
    try {
      await createArrived;
      listen.signal(signal);
      await listen.waitFor(new RegExp(`^${signal}: stopping once the registration in flight is answered, to delete it$`, 'm'));
      release();
      // No second signal: its own exit, once the registration is deleted.
      await expect.poll(() => listen.exitCode(), { timeout: 10_000 }).not.toBeNull();
      expect(await listen.stop()).toBe(0);
      expect(listen.stdout()).toMatch(new RegExp(`^${signal}: deleted webhook \\d+, stopped$`, 'm'));
      expect(listen.stdout()).not.toMatch(/Press Ctrl\+C/);
      expect(await emulatorClient().webhooks.list()).toEqual([]);
    } finally {
      await listen.stop();
      await proxy.close();
    }
  });

  it('prints every text from the network with control characters escaped: event names, ids, the app\'s status and body, the service\'s errors', async () => {
    // A service whose secret the test knows, so it can sign a delivery with hostile names; its delete fails with a hostile message.
    const secret = 'whsec_known_to_the_test';
    const service = await serve(
      createServer(async (req, res) => {
        const body = await readAll(req);
        if (req.method === 'POST') {
          const { url, name, event_types } = JSON.parse(body) as Record<string, unknown>;
          res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 7, secret, url, name, event_types }));
        } else {
          res.writeHead(409, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'gone\u001b[2J\u001b]0;owned\u0007 \u009b31m' }));
        }
      }),
    );
    // An app answering with a raw status line and body no node:http server would write.
    const app = createNetServer((socket) => {
      socket.once('data', () => {
        const body = '\u001b[2J{"error":"\u001b]0;evil\u0007"}\r\nforged line';
        socket.end(`HTTP/1.1 500 Bad\u001b[31mThing\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const appPort = (app.address() as AddressInfo).port;
    const listen = start(['listen', '--forward-to', `http://127.0.0.1:${appPort}/hook`], { SVC_BASE_URL: service.url, SVC_API_KEY: 'vdr_x' });
    try {
      const [, listener] = await listen.waitFor(/ to (http:\/\/127\.0\.0\.1:\d+\/)$/m);
      const delivery = JSON.stringify({
        event: 'credit.low\u001b]0;title\u0007',
        version: '1.0',
        delivery_id: 'd-\u001b[2K\r',
        timestamp: new Date().toISOString(),
        data: {},
      });
      const relayed = await fetch(listener!, { method: 'POST', headers: { 'x-svc-signature': sign(delivery, secret) }, body: delivery });
      expect(relayed.status).toBe(500);
      await expect
        .poll(() => listen.stdout())
        .toContain('credit.low\\x1b]0;title\\x07 d-\\x1b[2K\\r attempt 1 → 500 Bad\\x1b[31mThing: \\x1b[2J{"error":"\\x1b]0;evil\\x07"} forged line\n');
    } finally {
      expect(await listen.stop('SIGINT')).toBe(1);
      await service.close();
      await new Promise((resolve) => app.close(resolve));
    }
    expect(listen.stderr()).toContain('gone\\x1b[2J\\x1b]0;owned\\x07 \\x9b31m');
    expect(listen.stdout() + listen.stderr()).not.toMatch(RAW_CONTROL);
  });
});
