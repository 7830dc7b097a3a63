// `svc-sdk emulator` run in process (test/cli/support.ts): what it prints, the flags it passes on to
// createEmulator as seen at the wire, and its misuses. The bin itself on a real signal: cli.test.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { Client } from '../../src/index.node.js';
import { run, start, startEmulator } from './support.js';

describe('svc-sdk emulator', () => {
  it('prints its base URL, a key of its own that it accepts, and how to stop; a stop prints that it stopped', async () => {
    const emulator = start(['emulator', '--port', '0']);
    const [, baseUrl] = await emulator.waitFor(/^ {2}SVC_BASE_URL=(http:\/\/127\.0\.0\.1:\d+)$/m);
    await emulator.waitFor(/^Press Ctrl\+C to stop\.$/m);
    const lines = emulator.stdout().split('\n');
    expect(lines[0]).toBe(`svc-sdk emulator listening on ${baseUrl}`);
    expect(lines[2]).toMatch(/^ {2}SVC_API_KEY=vdr_local_[0-9a-f]{24} {3}\(any key starting with vdr_ works\)$/);
    expect(lines[3]).toBe('Press Ctrl+C to stop.');
    const key = /SVC_API_KEY=(\S+)/.exec(lines[2]!)![1]!;
    expect(await new Client({ apiKey: key, baseUrl: baseUrl!, maxRetries: 0 }).webhooks.list()).toEqual([]);
    expect(await emulator.stop('SIGINT')).toBe(0);
    expect(emulator.stdout().endsWith('Press Ctrl+C to stop.\nsvc-sdk emulator stopped\n')).toBe(true);
    expect(emulator.stderr()).toBe('');
    // Stopped means closed: nothing answers at its URL any more.
    await expect(fetch(`${baseUrl}/api/v1/webhooks/`)).rejects.toThrow();
  });

  it('--api-key: accepts that key only, and prints it without the note', async () => {
    const emulator = await startEmulator(['--api-key', 'vdr_only']);
    try {
      expect(emulator.stdout()).toContain('  SVC_API_KEY=vdr_only\n');
      expect(await new Client({ apiKey: 'vdr_only', baseUrl: emulator.baseUrl, maxRetries: 0 }).webhooks.list()).toEqual([]);
      const other = await fetch(`${emulator.baseUrl}/api/v1/webhooks/`, { headers: { authorization: 'Bearer vdr_other' } });
      expect(other.status).toBe(401);
    } finally {
      expect(await emulator.stop()).toBe(0);
    }
  });

  it('--unavailable-rate 1 answers every request 503, and the faults are printed', async () => {
    const emulator = await startEmulator(['--unavailable-rate', '1', '--latency-ms', '0']);
    try {
      expect(emulator.stdout()).toContain('\n  faults: latencyMs 0, unavailableRate 1\nPress Ctrl+C to stop.\n');
      const answer = await fetch(`${emulator.baseUrl}/api/v1/rooms/`, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
      expect(answer.status).toBe(503);
    } finally {
      expect(await emulator.stop()).toBe(0);
    }
  });

  it('--reset-after-bytes resets a request whose body passes it; no fault flag, no faults line', async () => {
    const plain = await startEmulator();
    expect(plain.stdout()).not.toContain('faults');
    expect(await plain.stop()).toBe(0);
    const emulator = await startEmulator(['--reset-after-bytes', '10']);
    try {
      expect(emulator.stdout()).toContain('  faults: resetAfterBytes 10\n');
      const headers = { authorization: `Bearer ${emulator.apiKey}`, 'content-type': 'application/json' };
      await expect(fetch(`${emulator.baseUrl}/api/v1/rooms/`, { method: 'POST', headers, body: JSON.stringify({ name: 'x'.repeat(100), room_type: 'company_investment' }) })).rejects.toThrow();
    } finally {
      expect(await emulator.stop()).toBe(0);
    }
  });

  it('--page-size and --max-records reach the emulator: lists in pages of n, at most n records of a kind', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const emulator = await startEmulator(['--max-records', '2', '--page-size', '1']);
    try {
      const client = new Client({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, maxRetries: 0 });
      for (const name of ['a', 'b', 'c']) await client.webhooks.create({ url: `https://example.com/${name}`, name, event_types: null });
      const page = await (await fetch(`${emulator.baseUrl}/api/v1/webhooks/`, { headers: { authorization: `Bearer ${emulator.apiKey}` } })).json();
      expect(page).toMatchObject({ count: 2, results: [{ name: 'b' }] });
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      expect(await emulator.stop()).toBe(0);
      warn.mockRestore();
    }
  });

  it('--delivery-delay-ms holds a delivery\'s first attempt that long', async () => {
    let got = 0;
    const app = createServer((_, res) => {
      got += 1;
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const emulator = start(['emulator', '--port', '0', '--delivery-delay-ms', '400']);
    try {
      const [, baseUrl] = await emulator.waitFor(/SVC_BASE_URL=(\S+)/);
      const client = new Client({ apiKey: 'vdr_x', baseUrl: baseUrl!, maxRetries: 0 });
      const hook = await client.webhooks.create({ url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/`, name: 'a', event_types: null });
      expect((await run(['trigger', 'ping.test'], { SVC_BASE_URL: baseUrl!, SVC_API_KEY: 'vdr_x' })).code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(got).toBe(0);
      await expect.poll(() => got).toBe(1);
      await emulator.waitFor(new RegExp(`^delivery ping\\.test → webhook ${hook.id} attempt 1: 200 \\([0-9a-f-]{36}\\)$`, 'm'));
    } finally {
      expect(await emulator.stop()).toBe(0);
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('exits 2 naming the fix when its port is taken', async () => {
    const first = await startEmulator();
    try {
      const { port } = new URL(first.baseUrl);
      expect(await run(['emulator', '--port', port])).toEqual({ code: 2, stdout: '', stderr: `[svc-sdk] port ${port} is in use: pick another with --port\n` });
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });

  it.each([
    [['--unavailable-rate', '1.5'], '--unavailable-rate must be a share from 0 to 1, such as 0.1, got "1.5"'],
    [['--unavailable-rate', '0.'], '--unavailable-rate must be a share from 0 to 1, such as 0.1, got "0."'],
    [['--unavailable-rate', 'x0.5'], '--unavailable-rate must be a share from 0 to 1, such as 0.1, got "x0.5"'],
    [['--unavailable-rate', '0.5x'], '--unavailable-rate must be a share from 0 to 1, such as 0.1, got "0.5x"'],
    [['--unavailable-rate', '1.'], '--unavailable-rate must be a share from 0 to 1, such as 0.1, got "1."'],
    [['--unavailable-rate', '.'], '--unavailable-rate must be a share from 0 to 1, such as 0.1, got "."'],
    [['--unavailable-rate', '0.a'], '--unavailable-rate must be a share from 0 to 1, such as 0.1, got "0.a"'],
    [['--unavailable-rate', '.a'], '--unavailable-rate must be a share from 0 to 1, such as 0.1, got ".a"'],
    [['--api-key', 'xvdr_a'], '--api-key must start with "vdr_" and go on after it'],
    [['--api-key', 'vdr_a b'], '--api-key must start with "vdr_" and go on after it'],
    [['--latency-ms', '600001'], '--latency-ms must be a whole number from 0 to 600000, got "600001"'],
    [['--reset-after-bytes', '0'], '--reset-after-bytes must be a whole number from 1 to 9007199254740991, got "0"'],
    [['--max-records', '0'], '--max-records must be a whole number from 1 to 100000000, got "0"'],
    [['--delivery-delay-ms', '86400001'], '--delivery-delay-ms must be a whole number from 0 to 86400000, got "86400001"'],
    [['--port', '65536'], '--port must be a whole number from 0 to 65535, got "65536"'],
  ])('%j exits 2: %s', async (args, message) => {
    expect(await run(['emulator', ...args])).toEqual({ code: 2, stdout: '', stderr: `[svc-sdk] ${message}\n` });
  });

  it.each(['0', '1', '0.25', '.5', '.25', '1.00', '0.0'])('--unavailable-rate %s is a share it takes', async (rate) => {
    const emulator = await startEmulator(['--unavailable-rate', rate]);
    expect(emulator.stdout()).toContain(`  faults: unavailableRate ${Number(rate)}\n`);
    expect(await emulator.stop()).toBe(0);
  });
});
