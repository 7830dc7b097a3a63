import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { built, closedPort, receiver, run, start } from './support.js';

const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe.skipIf(!built)('svc-sdk CLI', () => {
  it('--help lists every command with its summary and exits 0', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: svc-sdk <command>/);
    expect(stdout).toMatch(/^ {2}emulator {2}Runs the in-memory emulator/m);
    expect(stdout).toMatch(/^ {2}trigger {3}Fires an event through a running emulator/m);
    expect(stdout).toMatch(/^ {2}listen {4}Registers a webhook that forwards/m);
    expect(stdout).toContain('-v, --version');
  });

  it.each([['--version'], ['-v']])('%s prints the package version and exits 0', async (flag) => {
    expect(await run([flag])).toEqual({ code: 0, stdout: `${PACKAGE.version}\n`, stderr: '' });
  });

  it.each([
    [['emulator', '--help'], /^Usage: svc-sdk emulator \[--port 4010\]/],
    [['emulator', '--port', '1', '-h'], /^Usage: svc-sdk emulator /],
    [['trigger', '--help'], /^Usage: svc-sdk trigger <event-kind> \[--data/],
    [['trigger', 'credit.low', '--url', 'nope', '--help'], /^Usage: svc-sdk trigger /],
    [['listen', '--help'], /^Usage: svc-sdk listen --forward-to <app-url>/],
    [['help', 'listen'], /^Usage: svc-sdk listen /],
  ])('%j prints that command\'s own help and exits 0', async (args, usage) => {
    const { code, stdout, stderr } = await run(args);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(usage);
  });

  it.each([
    [[], /^\[svc-sdk\] a command is required: "emulator", "trigger", "listen", "upload", "inbox", "actions", "mcp" \(svc-sdk --help\)\n$/],
    [['serve'], /^\[svc-sdk\] unknown command "serve": use one of "emulator"/],
    [['emultor'], /^\[svc-sdk\] unknown command "emultor": did you mean "emulator"\? use one of "emulator"/],
    [['emulator', '--prot', '4010'], /^\[svc-sdk\] Unknown option '--prot': did you mean "--port"\? \(svc-sdk emulator --help\)\n$/],
    [['emulator', '--port', 'abc'], /^\[svc-sdk\] --port must be a whole number/],
    [['emulator', '--api-key', 'sk_1'], /^\[svc-sdk\] --api-key must start with "vdr_"/],
    [['emulator', '--api-key', 'vdr_'], /^\[svc-sdk\] --api-key must start with "vdr_" and go on after it/],
    [['emulator', '--page-size', '0'], /^\[svc-sdk\] --page-size must be a whole number from 1 to 1000, got "0"/],
    [['emulator', '--verbose'], /^\[svc-sdk\] Unknown option '--verbose' \(svc-sdk emulator --help\)\n$/],
    [['trigger'], /^\[svc-sdk\] trigger needs an event kind/],
    [['trigger', 'document.upload', '--url', 'http://127.0.0.1:1/x'], /^\[svc-sdk\] unknown event kind "document.upload": did you mean "document.uploaded"\? use one of document.uploaded, /],
    [['trigger', 'credit.low', 'extra'], /^\[svc-sdk\] trigger takes one event kind/],
    [['trigger', 'credit.low', '--secret', 's'], /^\[svc-sdk\] --secret goes with --url/],
    [['trigger', 'credit.low', '--url', 'localhost:3000'], /^\[svc-sdk\] --url "localhost:3000" has no scheme: write it with http:\/\/ or https:\/\/, such as http:\/\/localhost:3000\n$/],
    [['trigger', 'credit.low', '--url', 'ftp://example.com/x'], /^\[svc-sdk\] --url "ftp:\/\/example.com\/x" must be an http:\/\/ or https:\/\/ URL, not ftp:\/\//],
    [['trigger', 'credit.low', '--url', 'http://[nope'], /^\[svc-sdk\] --url "http:\/\/\[nope" is not a valid URL/],
    [['trigger', 'credit.low', '--url', 'http://127.0.0.1:1/x'], /^\[svc-sdk\] the signing secret is missing: set SVC_WEBHOOK_SECRET/],
    [['trigger', 'credit.low', '--url', 'http://127.0.0.1:1/x', '--emulator', 'http://127.0.0.1:1'], /^\[svc-sdk\] pass either --url \(a receiver\) or --emulator, not both/],
    [['trigger', 'credit.low', '--url', 'http://127.0.0.1:1/x', '--secret', 's', '--data', '[1]'], /^\[svc-sdk\] --data must be a JSON object/],
    [['trigger', 'credit.low', '--timeout-ms', '0'], /^\[svc-sdk\] --timeout-ms must be a whole number from 1 to 600000/],
    [['listen'], /^\[svc-sdk\] --forward-to is required: pass an absolute URL such as http:\/\/127.0.0.1:3000\/webhooks/],
    [['listen', '--forward-to', 'localhost:3000/hook'], /^\[svc-sdk\] --forward-to "localhost:3000\/hook" has no scheme/],
    [['listen', '--forward-to', 'http://127.0.0.1:3000/', '--events', 'credit.lo,ping.test'], /^\[svc-sdk\] --events takes event kinds separated by commas; unknown: credit.lo \(did you mean "credit.low"\?\): use any of /],
    [['listen', '--forward-to', 'http://127.0.0.1:3000/'], /^\[svc-sdk\] SVC_API_KEY is not set: set it to your API key/],
  ])('%j exits 2 with a message naming the fix', async (args, message) => {
    const { code, stderr } = await run(args);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
  });

  it('listen without SVC_BASE_URL says to set it', async () => {
    const { code, stderr } = await run(['listen', '--forward-to', 'http://127.0.0.1:3000/'], { SVC_API_KEY: 'vdr_x' });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^\[svc-sdk\] SVC_BASE_URL is not set: set it to the service's base URL/);
  });

  it('trigger --url signs one sample event with SVC_WEBHOOK_SECRET, prints the answer and exits 0 on 2xx', async () => {
    const target = await receiver((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
    try {
      const { code, stdout } = await run(['trigger', 'credit.low', '--url', target.url], { SVC_WEBHOOK_SECRET: 'whsec_cli' });
      expect(code).toBe(0);
      expect(stdout).toBe(`credit.low → ${target.url}: 200 OK\n{"received":true}\n`);
      const [{ body, signature }] = target.got as [{ body: string; signature: string }];
      expect(signature).toBe(`sha256=${createHmac('sha256', 'whsec_cli').update(body).digest('hex')}`);
      expect(JSON.parse(body)).toMatchObject({ event: 'credit.low', version: '1.0', data: { balance: 90, threshold: 100 } });
    } finally {
      await target.close();
    }
  });

  it('trigger --secret still signs (for tests), and the flag wins over SVC_WEBHOOK_SECRET', async () => {
    const target = await receiver((_, res) => res.writeHead(204).end());
    try {
      const { code } = await run(['trigger', 'ping.test', '--url', target.url, '--secret', 'whsec_flag'], { SVC_WEBHOOK_SECRET: 'whsec_env' });
      expect(code).toBe(0);
      const { body, signature } = target.got[0]!;
      expect(signature).toBe(`sha256=${createHmac('sha256', 'whsec_flag').update(body).digest('hex')}`);
    } finally {
      await target.close();
    }
  });

  it('trigger exits 1 and prints the status when the receiver answers non-2xx', async () => {
    const target = await receiver((_, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad signature"}'));
    try {
      const { code, stdout } = await run(['trigger', 'ping.test', '--url', target.url, '--data', '{"x":1}'], { SVC_WEBHOOK_SECRET: 's' });
      expect(code).toBe(1);
      expect(stdout).toBe(`ping.test → ${target.url}: 401 Unauthorized\n{"error":"bad signature"}\n`);
      expect(JSON.parse(target.got[0]!.body).data).toEqual({ x: 1 });
    } finally {
      await target.close();
    }
  });

  it('trigger prints at most 4 KiB of an endless answer and stops reading it', async () => {
    let sent = 0;
    let closed = false;
    const chunk = 'x'.repeat(64 * 1024);
    const target = await receiver((_, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.on('close', () => (closed = true));
      // Up to 300 MB, but only as fast as the reader takes it: a CLI that reads it whole would take all of it.
      const pump = () => {
        while (!closed && sent < 300 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    try {
      const { code, stdout } = await run(['trigger', 'ping.test', '--url', target.url], { SVC_WEBHOOK_SECRET: 's' });
      expect(code).toBe(0);
      const [status, body, note] = stdout.split('\n');
      expect(status).toBe(`ping.test → ${target.url}: 200 OK`);
      expect(body).toBe('x'.repeat(4096));
      expect(note).toBe('… (the answer goes on; only its first 4 KiB are shown)');
      await expect.poll(() => closed).toBe(true);
      expect(sent).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await target.close();
    }
  });

  it('trigger names why a delivery failed: refused', async () => {
    const port = await closedPort();
    const { code, stderr } = await run(['trigger', 'ping.test', '--url', `http://127.0.0.1:${port}/x`], { SVC_WEBHOOK_SECRET: 's' });
    expect(code).toBe(1);
    expect(stderr).toBe(`[svc-sdk] could not reach http://127.0.0.1:${port}/x: connection refused (ECONNREFUSED): nothing listens there\n`);
  });

  it('trigger names why a delivery failed: timeout', async () => {
    const target = await receiver(() => undefined); // never answers
    try {
      const { code, stderr } = await run(['trigger', 'ping.test', '--url', target.url, '--timeout-ms', '300'], { SVC_WEBHOOK_SECRET: 's' });
      expect(code).toBe(1);
      expect(stderr).toBe(`[svc-sdk] could not reach ${target.url}: timed out: no answer within 300 ms\n`);
    } finally {
      await target.close();
    }
  });

  it('trigger names why a delivery failed: TLS (https:// to a plain-HTTP port)', async () => {
    const target = await receiver((_, res) => res.writeHead(200).end());
    try {
      const url = target.url.replace('http:', 'https:');
      const { code, stderr } = await run(['trigger', 'ping.test', '--url', url], { SVC_WEBHOOK_SECRET: 's' });
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`^\\[svc-sdk\\] could not reach ${url.replace(/[.]/g, '\\.')}: TLS failed: wrong version number \\(ERR_SSL_WRONG_VERSION_NUMBER\\)\\n$`));
    } finally {
      await target.close();
    }
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('emulator serves the API on the printed base url and stops cleanly on %s', async (signal) => {
    const emulator = start(['emulator', '--port', '0']);
    try {
      const [, baseUrl] = await emulator.waitFor(/SVC_BASE_URL=(\S+)/);
      const [, apiKey] = await emulator.waitFor(/SVC_API_KEY=(\S+)/);
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new Client({ apiKey: apiKey!, baseUrl: baseUrl!, maxRetries: 0 });
      expect(await client.rooms.create({ name: 'R', room_type: 'company_investment' })).toMatchObject({ id: 1, name: 'R' });
    } finally {
      expect(await emulator.stop(signal)).toBe(0);
    }
    expect(emulator.stdout()).toContain('svc-sdk emulator stopped');
  });

  it('emulator --page-size <n> answers every list in pages of n', async () => {
    const emulator = start(['emulator', '--port', '0', '--page-size', '1']);
    try {
      const [, baseUrl] = await emulator.waitFor(/SVC_BASE_URL=(\S+)/);
      const client = new Client({ apiKey: 'vdr_cli', baseUrl: baseUrl!, maxRetries: 0 });
      await client.webhooks.create({ url: 'https://example.com/a', name: 'a', event_types: null });
      await client.webhooks.create({ url: 'https://example.com/b', name: 'b', event_types: null });
      const page = await (await fetch(`${baseUrl}/api/v1/webhooks/`, { headers: { authorization: 'Bearer vdr_cli' } })).json();
      expect(page).toMatchObject({ count: 2, next: '/api/v1/webhooks/?page=2&page_size=1', previous: null, results: [{ name: 'a' }] });
      expect((await client.webhooks.list()).map((webhook) => webhook.name)).toEqual(['a', 'b']);
    } finally {
      expect(await emulator.stop()).toBe(0);
    }
  });
});
