// `svc-sdk trigger <kind>` without --url: through a running `svc-sdk emulator`, to its subscribers.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { closedPort, receiver, run, startEmulator } from './support.js';

describe('svc-sdk trigger <kind> through a running emulator', () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => {
    expect(await emulator.stop()).toBe(0);
  });

  it('delivers the event, signed, to every webhook subscribed to its kind, and lists them', async () => {
    const target = await receiver((_, res) => res.writeHead(200).end());
    try {
      const client = new Client({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, maxRetries: 0 });
      const hook = await client.webhooks.create({ url: target.url, name: 'app', event_types: ['credit.low'] });
      await client.webhooks.create({ url: target.url, name: 'other', event_types: ['job.failed'] });
      const env = { SVC_BASE_URL: emulator.baseUrl, SVC_API_KEY: emulator.apiKey };
      const { code, stdout, stderr } = await run(['trigger', 'credit.low', '--data', '{"balance":7}'], env);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const [, deliveryId] = new RegExp(`^credit\\.low → 1 webhook of the emulator at ${emulator.baseUrl}:\\n  webhook ${hook.id}: delivery ([0-9a-f-]{36})\\n$`).exec(stdout)!;
      await expect.poll(() => target.got.length).toBe(1);
      const { body, signature } = target.got[0]!;
      expect(signature).toBe(`sha256=${createHmac('sha256', hook.secret).update(body).digest('hex')}`);
      expect(JSON.parse(body)).toMatchObject({ event: 'credit.low', delivery_id: deliveryId, data: { balance: 7 } });
      await expect.poll(() => emulator.stdout()).toContain(`delivery credit.low → webhook ${hook.id} attempt 1: 200 (${deliveryId})`);
      await client.webhooks.delete(hook.id);
    } finally {
      await target.close();
    }
  });

  it('says so when no webhook subscribes to the kind, exit 0', async () => {
    const { code, stdout } = await run(['trigger', 'covenant.breached', '--emulator', emulator.baseUrl], { SVC_API_KEY: emulator.apiKey });
    expect(code).toBe(0);
    expect(stdout).toBe(`covenant.breached → no webhook of the emulator at ${emulator.baseUrl} subscribes to it: register one (svc-sdk listen --forward-to <your app>)\n`);
  });

  it('the emulator\'s log names why a delivery failed (connection refused), not "fetch failed"', async () => {
    const port = await closedPort();
    const client = new Client({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, maxRetries: 0 });
    const hook = await client.webhooks.create({ url: `http://127.0.0.1:${port}/gone`, name: 'gone', event_types: ['module.enabled'] });
    const { code } = await run(['trigger', 'module.enabled'], { SVC_BASE_URL: emulator.baseUrl, SVC_API_KEY: emulator.apiKey });
    expect(code).toBe(0);
    await expect
      .poll(() => emulator.stdout())
      .toMatch(new RegExp(`delivery module\\.enabled → webhook ${hook.id} attempt 1: failed: connection refused \\(ECONNREFUSED\\): nothing listens there \\(`));
    await client.webhooks.delete(hook.id);
  });

  it('exits 1 naming the fix when no emulator answers', async () => {
    const port = await closedPort();
    const { code, stderr } = await run(['trigger', 'credit.low'], { SVC_BASE_URL: `http://127.0.0.1:${port}` });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `[svc-sdk] no emulator answers at http://127.0.0.1:${port} (SVC_BASE_URL): could not reach http://127.0.0.1:${port}/api/v1/_emulator/events: connection refused (ECONNREFUSED): nothing listens there. To fix: start one (npx svc-sdk emulator) and set SVC_BASE_URL to the URL it prints, or pass --url <receiver> to send straight to a receiver\n`,
    );
  });

  it('exits 1 naming the fix when SVC_BASE_URL is a server that is not an emulator', async () => {
    const service = await receiver((_, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}'));
    try {
      const base = service.url.replace('/hook', '');
      const { code, stderr } = await run(['trigger', 'credit.low'], { SVC_BASE_URL: base, SVC_API_KEY: 'vdr_x' });
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`^\\[svc-sdk\\] ${base} \\(SVC_BASE_URL\\) is not an svc-sdk emulator: POST /api/v1/_emulator/events answered 404 Not Found\\. To fix: start one`));
    } finally {
      await service.close();
    }
  });

  it('exits 1 naming SVC_API_KEY when the emulator refuses the key', async () => {
    const strict = await startEmulator(['--api-key', 'vdr_only_this']);
    try {
      const { code, stderr } = await run(['trigger', 'credit.low', '--emulator', strict.baseUrl], { SVC_API_KEY: 'vdr_other' });
      expect(code).toBe(1);
      expect(stderr).toBe(`[svc-sdk] the emulator at ${strict.baseUrl} refused the API key: set SVC_API_KEY to the key it accepts (svc-sdk emulator prints it)\n`);
    } finally {
      await strict.stop();
    }
  });
});
