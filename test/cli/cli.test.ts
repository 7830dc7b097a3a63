import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const built = existsSync(CLI);
if (!built) console.warn(`[svc-sdk] skipping the CLI tests: ${CLI} is missing; run "npm run build" first (npm test does)`);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built bin with the node running the tests (node 24 under npm, not the machine's 20). */
function run(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A receiver answering `status`; it keeps what it got. */
async function receiver(status: number) {
  const got: Array<{ body: string; signature: string | undefined }> = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    got.push({ body, signature: req.headers['x-svc-signature'] as string | undefined });
    res.writeHead(status, { 'content-type': 'application/json' }).end(status < 300 ? '{"received":true}' : '{"error":"bad signature"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, got, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe.skipIf(!built)('svc-sdk CLI', () => {
  it('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: svc-sdk <command>/);
    expect(stdout).toContain('emulator');
    expect(stdout).toContain('trigger <event-kind>');
  });

  it.each([
    [[], /^\[svc-sdk\] a command is required/],
    [['serve'], /^\[svc-sdk\] unknown command "serve"/],
    [['emulator', '--port', 'abc'], /^\[svc-sdk\] --port must be a whole number/],
    [['emulator', '--api-key', 'sk_1'], /^\[svc-sdk\] --api-key must start with "vdr_"/],
    [['emulator', '--api-key', 'vdr_'], /^\[svc-sdk\] --api-key must start with "vdr_" and go on after it/],
    [['emulator', '--page-size', '0'], /^\[svc-sdk\] --page-size must be a whole number from 1 to 1000, got "0"/],
    [['emulator', '--verbose'], /^\[svc-sdk\] Unknown option '--verbose'/],
    [['trigger'], /^\[svc-sdk\] trigger needs an event kind/],
    [['trigger', 'document.upload', '--url', 'http://127.0.0.1:1/x', '--secret', 's'], /^\[svc-sdk\] unknown event kind "document.upload": use one of document.uploaded, /],
    [['trigger', 'credit.low', 'extra'], /^\[svc-sdk\] trigger takes one event kind/],
    [['trigger', 'credit.low', '--secret', 's'], /^\[svc-sdk\] --url is required/],
    [['trigger', 'credit.low', '--url', 'http://127.0.0.1:1/x'], /^\[svc-sdk\] --secret is required/],
    [['trigger', 'credit.low', '--url', 'http://127.0.0.1:1/x', '--secret', 's', '--data', '[1]'], /^\[svc-sdk\] --data must be a JSON object/],
  ])('%j exits 2 with a clear message', async (args, message) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('trigger sends one signed sample event, prints the answer and exits 0 on 2xx', async () => {
    const target = await receiver(200);
    try {
      const { code, stdout } = await run(['trigger', 'credit.low', '--url', target.url, '--secret', 'whsec_cli']);
      expect(code).toBe(0);
      expect(stdout).toContain(`credit.low → ${target.url}: 200 OK`);
      expect(stdout).toContain('{"received":true}');
      const [{ body, signature }] = target.got as [{ body: string; signature: string }];
      expect(signature).toBe(`sha256=${createHmac('sha256', 'whsec_cli').update(body).digest('hex')}`);
      expect(JSON.parse(body)).toMatchObject({ event: 'credit.low', version: '1.0', data: { balance: 90, threshold: 100 } });
    } finally {
      await target.close();
    }
  });

  it('trigger exits 1 when the receiver answers non-2xx, or cannot be reached', async () => {
    const target = await receiver(401);
    try {
      const { code, stdout } = await run(['trigger', 'ping.test', '--url', target.url, '--secret', 's', '--data', '{"x":1}']);
      expect(code).toBe(1);
      expect(stdout).toContain('401 Unauthorized');
      expect(JSON.parse(target.got[0]!.body).data).toEqual({ x: 1 });
    } finally {
      await target.close();
    }
    const unreachable = await run(['trigger', 'ping.test', '--url', target.url, '--secret', 's']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^\[svc-sdk\] could not reach/);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('emulator serves the API on the printed base url and stops cleanly on %s', async (signal) => {
    const child = spawn(process.execPath, [CLI, 'emulator', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdout.on('data', (chunk) => (stdout += chunk));
    try {
      await expect.poll(() => stdout, { timeout: 10_000 }).toMatch(/SVC_API_KEY=vdr_\S+/);
      const baseUrl = /SVC_BASE_URL=(\S+)/.exec(stdout)![1]!;
      const apiKey = /SVC_API_KEY=(\S+)/.exec(stdout)![1]!;
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new Client({ apiKey, baseUrl, maxRetries: 0 });
      expect(await client.rooms.create({ name: 'R', room_type: 'company_investment' })).toMatchObject({ id: 1, name: 'R' });
    } finally {
      child.kill(signal);
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('svc-sdk emulator stopped');
  });

  it('emulator --page-size <n> answers every list in pages of n', async () => {
    const child = spawn(process.execPath, [CLI, 'emulator', '--port', '0', '--page-size', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdout.on('data', (chunk) => (stdout += chunk));
    try {
      await expect.poll(() => stdout, { timeout: 10_000 }).toMatch(/SVC_API_KEY=vdr_\S+/);
      const baseUrl = /SVC_BASE_URL=(\S+)/.exec(stdout)![1]!;
      const client = new Client({ apiKey: 'vdr_cli', baseUrl, maxRetries: 0 });
      await client.webhooks.create({ url: 'https://example.com/a', name: 'a', event_types: null });
      await client.webhooks.create({ url: 'https://example.com/b', name: 'b', event_types: null });
      const page = await (await fetch(`${baseUrl}/api/v1/webhooks/`, { headers: { authorization: 'Bearer vdr_cli' } })).json();
      expect(page).toMatchObject({ count: 2, next: '/api/v1/webhooks/?page=2&page_size=1', previous: null, results: [{ name: 'a' }] });
      expect((await client.webhooks.list()).map((webhook) => webhook.name)).toEqual(['a', 'b']);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
