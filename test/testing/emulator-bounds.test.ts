// The emulator's Host allow-list read as URLs read names (an international name arrives in punycode),
// and its records bounded per kind (oldest dropped, one warning), in process and in the long-running CLI.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '../../src/index.node.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { Store } from '../../src/testing/store.js';
import { built, closedPort, run, startBin } from '../cli/support.js';
import { call, KEY } from './support.js';

/** GET /api/v1/webhooks/ on the emulator's server with `host` as the Host header; resolves with the status. */
function statusForHost(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path: '/api/v1/webhooks/', headers: { host, authorization: `Bearer ${KEY}` } }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    request.on('error', reject);
    request.end();
  });
}

describe('createEmulator({ allowedHosts }) with international names', () => {
  let emulator: Emulator | undefined;
  afterEach(() => emulator?.close());

  it('answers a Host in punycode for a name listed in Unicode, in any case, and still refuses others 421', async () => {
    emulator = createEmulator({ allowedHosts: ['Bücher.example', 'ÉCOLE.test'] });
    const { port } = await emulator.listen(0);
    // What a client sends for http://bücher.example:port/ (fetch and node:http both write the ASCII form).
    expect(new URL(`http://bücher.example:${port}/`).host).toBe(`xn--bcher-kva.example:${port}`);
    expect(await statusForHost(port, `xn--bcher-kva.example:${port}`)).toBe(200);
    expect(await statusForHost(port, 'XN--BCHER-KVA.EXAMPLE')).toBe(200);
    expect(await statusForHost(port, `xn--cole-9oa.test:${port}`)).toBe(200);
    expect(await statusForHost(port, 'xn--bcher-kva.example.evil.test')).toBe(421);
    expect(await statusForHost(port, 'bucher.example')).toBe(421);
  });

  it('refuses listed names that a URL would read as another host (userinfo, a path, a query)', () => {
    for (const allowedHosts of [['evil.test@good.test'], ['good.test?x'], ['good.test#x'], ['[::1]'], ['a\\b']]) {
      expect(() => createEmulator({ allowedHosts })).toThrow('[svc-sdk] createEmulator: allowedHosts must be an array of host names without a port');
    }
  });
});

describe('createEmulator({ maxRecords })', () => {
  let emulator: Emulator | undefined;
  afterEach(() => {
    vi.restoreAllMocks();
    return emulator?.close();
  });

  const webhook = (index: number) => ({ url: `https://example.com/hook/${index}`, name: `hook ${index}`, event_types: null });

  it('keeps the newest maxRecords records of each kind, drops the oldest, and warns once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    emulator = createEmulator({ maxRecords: 5, deliveryDelayMs: 0 });
    for (let index = 1; index <= 12; index += 1) {
      expect((await call(emulator, 'POST', '/webhooks/', { json: webhook(index) })).status).toBe(201);
    }
    const listed = (await call(emulator, 'GET', '/webhooks/')).body.data as Array<{ id: number }>;
    expect(listed.map((hook) => hook.id)).toEqual([8, 9, 10, 11, 12]);
    expect((await call(emulator, 'GET', '/webhooks/7/')).status).toBe(404);

    // Deals too: a transaction on a dropped deal is refused as on a missing one; the newest are kept.
    for (let index = 1; index <= 7; index += 1) {
      await call(emulator, 'POST', '/svc/crm/deals', { json: { name: `D${index}`, stage: 'sourcing', asset_class: 'equity' } });
    }
    expect((await call(emulator, 'POST', '/svc/transactions', { json: { name: 'T', deal_id: 2 } })).status).toBe(404);
    for (let index = 0; index < 9; index += 1) {
      expect((await call(emulator, 'POST', '/svc/transactions', { json: { name: `T${index}`, deal_id: 7 } })).status).toBe(201);
    }
    expect((await call(emulator, 'GET', '/svc/transactions?deal_id=7')).body.data).toHaveLength(5);

    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toBe(
      '[svc-sdk] emulator: webhooks reached 5, the most it keeps of each kind: each new record now drops the oldest of its kind. ' +
        'Raise the bound with createEmulator({ maxRecords }) or svc-sdk emulator --max-records, or reset() between runs',
    );
  });

  it('makes no more deliveries to a dropped webhook, its retries included', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    emulator = createEmulator({ maxRecords: 1, deliveryDelayMs: 0 });
    const first = (await call(emulator, 'POST', '/webhooks/', { json: { ...webhook(1), url: 'http://127.0.0.1:9/down' } })).body;
    await emulator.trigger('ping.test');
    await emulator.waitForDelivery((attempt) => attempt.webhookId === first.id);
    await call(emulator, 'POST', '/webhooks/', { json: webhook(2) }); // drops the first, whose retry is pending
    await emulator.advance(11 * 3_600_000);
    expect(emulator.deliveries.filter((attempt) => attempt.webhookId === first.id)).toHaveLength(1);
  });

  it('keeps the newest maxRecords delivery attempts in deliveries, and still finds the attempts made after the drops', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    emulator = createEmulator({ maxRecords: 4, deliveryDelayMs: 0 });
    const port = await closedPort();
    await call(emulator, 'POST', '/webhooks/', { json: { ...webhook(1), url: `http://127.0.0.1:${port}/down` } });
    await emulator.trigger('ping.test');
    const made = await emulator.advance(11 * 3_600_000); // 6 attempts, all failed
    expect(emulator.deliveries.map((attempt) => attempt.attempt)).toEqual([3, 4, 5, 6]);
    expect(made.map((attempt) => attempt.attempt)).toEqual([3, 4, 5, 6]);
    const waiting = emulator.waitForDelivery((attempt) => attempt.event === 'credit.low');
    await emulator.trigger('credit.low');
    expect(await waiting).toMatchObject({ event: 'credit.low', attempt: 1 });
    expect(emulator.deliveries.map((attempt) => `${attempt.event} ${attempt.attempt}`)).toEqual(['ping.test 4', 'ping.test 5', 'ping.test 6', 'credit.low 1']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/^\[svc-sdk\] emulator: delivery attempts reached 4, the most it keeps of each kind/);
  });

  it('keeps 10 000 of each kind by default: the 10 001st webhook drops the first', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    emulator = createEmulator();
    const client = new Client({ apiKey: KEY, baseUrl: 'https://svc.test', fetch: emulator.fetch, maxRetries: 0 });
    for (let index = 1; index <= 10_001; index += 1) await client.webhooks.create(webhook(index));
    const ids = (await client.webhooks.list()).map((hook) => hook.id);
    expect(ids).toHaveLength(10_000);
    expect(ids[0]).toBe(2);
    expect(console.warn).toHaveBeenCalledTimes(1);
  }, 60_000);

  it('drops nothing when a record already kept is stored again at the bound', () => {
    const warn = vi.fn();
    const store = new Store(2, warn);
    for (const id of [1, 2, 2, 1]) store.rooms.set(id, { id, name: `R${id}`, room_type: 'company_investment' });
    expect([...store.rooms.keys()]).toEqual([1, 2]);
    expect(warn).not.toHaveBeenCalled();
    store.rooms.set(3, { id: 3, name: 'R3', room_type: 'company_investment' });
    expect([...store.rooms.keys()]).toEqual([2, 3]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('keeps every record with maxRecords: Infinity', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    emulator = createEmulator({ maxRecords: Number.POSITIVE_INFINITY });
    for (let index = 1; index <= 30; index += 1) await call(emulator, 'POST', '/webhooks/', { json: webhook(index) });
    expect((await call(emulator, 'GET', '/webhooks/')).body.data).toHaveLength(30);
    expect(warn).not.toHaveBeenCalled();
  });

  it.each([0, -1, 1.5, Number.NaN, '10'])('refuses maxRecords %s, naming the fix', (maxRecords) => {
    expect(() => createEmulator({ maxRecords: maxRecords as number })).toThrow(
      '[svc-sdk] createEmulator: maxRecords must be a whole number of records, 1 or more (or Infinity to keep every record)',
    );
  });
});

describe.skipIf(!built)('svc-sdk emulator --max-records', () => {
  it('keeps at most that many records of each kind over HTTP, warning once on stderr', async () => {
    // The built bin in a process of its own: the warning is the emulator's console.warn, on that process's stderr.
    const emulator = startBin(['emulator', '--port', '0', '--delivery-delay-ms', '0', '--max-records', '3']);
    const [, baseUrl] = await emulator.waitFor(/SVC_BASE_URL=(\S+)/);
    const [, apiKey] = await emulator.waitFor(/SVC_API_KEY=(\S+)/);
    try {
      const client = new Client({ apiKey: apiKey!, baseUrl: baseUrl!, maxRetries: 0 });
      for (let index = 1; index <= 8; index += 1) await client.webhooks.create({ url: `https://example.com/${index}`, name: `h${index}`, event_types: null });
      expect((await client.webhooks.list()).map((hook) => hook.id)).toEqual([6, 7, 8]);
      await expect.poll(() => emulator.stderr()).toContain('[svc-sdk] emulator: webhooks reached 3, the most it keeps of each kind');
      expect(emulator.stderr().match(/\[svc-sdk\] emulator: /g)).toHaveLength(1);
    } finally {
      expect(await emulator.stop()).toBe(0);
    }
  });

  it('refuses a --max-records that is not a whole number from 1, with exit 2', async () => {
    const { code, stderr } = await run(['emulator', '--max-records', '0']);
    expect(code).toBe(2);
    expect(stderr).toBe('[svc-sdk] --max-records must be a whole number from 1 to 100000000, got "0"\n');
  });
});
