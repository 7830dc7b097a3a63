import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Client } from '../../src/index.node.js';
import { createEmulator } from '../../src/testing/index.js';
import { KEY } from './support.js';

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** A loopback receiver answering `status()`; counts what it got. */
async function receiver(status: () => number) {
  let received = 0;
  const server = createServer((_request, response) => {
    received += 1;
    response.writeHead(status()).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received: () => received };
}

// --- README: "Walking the delivery schedule" (begin). Kept identical to the README's block by the last test. ---
it('retries a failed delivery on the spec schedule, in milliseconds', async () => {
  const emulator = createEmulator(); // first attempt after 2 s, retries after 1 min, 5 min, 30 min, 2 h, 8 h
  const client = new Client({ apiKey: 'vdr_test', baseUrl: 'https://svc.test', fetch: emulator.fetch });

  let status = 503; // the receiver fails until told otherwise
  const receiver = createServer((_request, response) => response.writeHead(status).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  const webhook = await client.webhooks.create({ url: `http://127.0.0.1:${port}/hook`, name: 'ci', event_types: null });
  await emulator.trigger('credit.low');

  expect(await emulator.advance(2_000)).toMatchObject([{ attempt: 1, status: 503, ok: false }]);
  expect(await emulator.advance(60_000 + 300_000)).toMatchObject([{ attempt: 2 }, { attempt: 3 }]);
  status = 200;
  expect(await emulator.advance(1_800_000)).toMatchObject([{ attempt: 4, status: 200, ok: true }]);
  expect(await emulator.advance(24 * 3_600_000)).toEqual([]); // delivered: nothing more to send
  expect((await client.webhooks.retrieve(webhook.id)).failure_count).toBe(0);

  await emulator.close();
  receiver.closeAllConnections();
  receiver.close();
});
// --- README: "Walking the delivery schedule" (end) ---

describe('emulator.advance(ms)', () => {
  it('walks all 6 attempts of a failing delivery in order, stamped on the emulator clock, then counts the failure', async () => {
    const emulator = createEmulator();
    const target = await receiver(() => 500);
    const client = new Client({ apiKey: KEY, baseUrl: 'https://svc.test', fetch: emulator.fetch, maxRetries: 0 });
    const webhook = await client.webhooks.create({ url: target.url, name: 'r', event_types: ['credit.low'] });
    const started = Date.now();
    // The real clock stands still from the trigger to the 1 999 ms advance: a loaded machine that
    // lets 1 ms pass between the two would otherwise make the first attempt due (a flake CI hit).
    const clock = vi.spyOn(Date, 'now').mockReturnValue(started);
    let scheduled: Awaited<ReturnType<typeof emulator.trigger>>[number] | undefined;
    try {
      [scheduled] = await emulator.trigger('credit.low');
      expect(await emulator.advance(1_999)).toEqual([]);
    } finally {
      clock.mockRestore();
    }
    expect(target.received()).toBe(0);
    const attempts = await emulator.advance(11 * 3_600_000);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.deliveryId])).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => [n, 500, scheduled!.deliveryId]),
    );
    expect(target.received()).toBe(6);
    expect(emulator.deliveries).toEqual(attempts);
    // The gaps between attempts are exactly the spec's schedule, on the clock advance moved.
    const at = attempts.map((attempt) => Date.parse(attempt.at));
    expect(at.slice(1).map((time, index) => time - at[index]!)).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000]);
    expect(at[0]! - started).toBeGreaterThanOrEqual(2_000);
    expect(at[0]! - started).toBeLessThan(3_000);
    expect((await client.webhooks.retrieve(webhook.id)).failure_count).toBe(1);
    await emulator.close();
  });

  it('keeps the gaps exact when the real clock ticks between two readings (it once stamped an attempt 1 ms late)', async () => {
    const emulator = createEmulator();
    const target = await receiver(() => 500);
    const client = new Client({ apiKey: KEY, baseUrl: 'https://svc.test', fetch: emulator.fetch, maxRetries: 0 });
    await client.webhooks.create({ url: target.url, name: 'r', event_types: ['credit.low'] });
    await emulator.trigger('credit.low');
    // Every reading of the clock is 1 ms later than the one before: any two readings in a row disagree.
    const realNow = Date.now.bind(Date);
    let ticks = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + ++ticks);
    try {
      const at = (await emulator.advance(11 * 3_600_000)).map((attempt) => Date.parse(attempt.at));
      expect(at.slice(1).map((time, index) => time - at[index]!)).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000]);
    } finally {
      clock.mockRestore();
      await emulator.close();
    }
  });

  it('leaves what is not due yet on its (re-armed) real timer: an attempt 1 s away, advanced 900 ms, comes about 100 ms later', async () => {
    const emulator = createEmulator({ deliveryDelayMs: 1_000 });
    const target = await receiver(() => 200);
    await new Client({ apiKey: KEY, baseUrl: 'https://svc.test', fetch: emulator.fetch }).webhooks.create({ url: target.url, name: 'r', event_types: null });
    await emulator.trigger('ping.test');
    expect(await emulator.advance(900)).toEqual([]);
    // A generous wait: under a loaded machine the re-armed timer's attempt can take a while to land.
    const attempt = await emulator.waitForDelivery(() => true, { timeout: 5_000 });
    expect(attempt).toMatchObject({ attempt: 1, status: 200 });
    await emulator.close();
  });

  it('makes every delivery due by then, for every endpoint, and resolves with [] when nothing is due', async () => {
    const emulator = createEmulator();
    expect(await emulator.advance(3_600_000)).toEqual([]);
    const first = await receiver(() => 200);
    const second = await receiver(() => 200);
    const client = new Client({ apiKey: KEY, baseUrl: 'https://svc.test', fetch: emulator.fetch });
    await client.webhooks.create({ url: first.url, name: 'a', event_types: null });
    await client.webhooks.create({ url: second.url, name: 'b', event_types: null });
    await emulator.trigger('module.enabled');
    await emulator.trigger('module.disabled');
    const attempts = await emulator.advance(2_000);
    expect(attempts).toHaveLength(4);
    expect(attempts.every((attempt) => attempt.ok)).toBe(true);
    expect([first.received(), second.received()]).toEqual([2, 2]);
    await emulator.close();
  });

  it('waits for an attempt already out, so that its retry counts toward the window', async () => {
    const emulator = createEmulator({ deliveryDelayMs: 0 });
    let arrived = 0;
    const server = createServer((_request, response) => {
      arrived += 1;
      setTimeout(() => response.writeHead(500).end(), 500); // a slow failure: still out when advance starts, even on a loaded machine
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    await new Client({ apiKey: KEY, baseUrl: 'https://svc.test', fetch: emulator.fetch }).webhooks.create({ url, name: 'r', event_types: null });
    await emulator.trigger('ping.test');
    await expect.poll(() => arrived).toBe(1);
    expect(emulator.deliveries).toHaveLength(0); // attempt 1 is out
    expect(await emulator.advance(60_000)).toMatchObject([{ attempt: 2, status: 500 }]);
    await emulator.close();
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('advance(%s) rejects with a clear TypeError', async (ms) => {
    await expect(createEmulator().advance(ms)).rejects.toThrow(/^\[svc-sdk\] emulator\.advance\(ms\): ms must be 0 or more milliseconds$/);
  });

  it('the README shows this recipe exactly as the test above runs it', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const heading = readme.indexOf('### Walking the delivery schedule');
    expect(heading, 'README has a "Walking the delivery schedule" section').toBeGreaterThan(-1);
    const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(heading))![1]!;
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const recipe = source.slice(source.indexOf('(begin)'), source.indexOf('// --- README: "Walking the delivery schedule" (end)'));
    const body = (text: string) => text.slice(text.indexOf("it('")).trim();
    expect(body(block)).toBe(body(recipe));
    // The README's imports are the package's own; the test's point at the source.
    for (const name of ['createServer', 'AddressInfo', 'expect, it', 'Client', 'createEmulator']) expect(block).toContain(name);
  });
});
