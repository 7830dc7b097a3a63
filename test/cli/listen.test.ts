// `svc-sdk listen --forward-to <app>` against a running `svc-sdk emulator`, all three over real sockets, the commands run in process.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { closedPort, receiver, run, start, startEmulator } from './support.js';

const sign = (body: string, secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('svc-sdk listen --forward-to', () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await startEmulator();
    env = { SVC_BASE_URL: emulator.baseUrl, SVC_API_KEY: emulator.apiKey };
  });
  afterAll(async () => {
    expect(await emulator.stop()).toBe(0);
  });

  it('registers a webhook, forwards each verified delivery re-signed, prints one line each, and deletes the webhook on Ctrl+C', async () => {
    // The app fails its first delivery: listen relays the 500, so the service's retry schedule applies.
    const app = await receiver((_, res, index) => (index === 0 ? res.writeHead(500).end('{"error":"db down"}') : res.writeHead(200).end('ok')));
    const client = new Client({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, maxRetries: 0 });
    const listen = start(['listen', '--forward-to', app.url, '--events', 'credit.low,ping.test'], env);
    try {
      const [, id, listener] = await listen.waitFor(/^svc-sdk listen: webhook (\d+) on \S+ delivers credit\.low, ping\.test to (http:\/\/127\.0\.0\.1:\d+\/)$/m);
      const [, secret] = await listen.waitFor(/^Forwarding to \S+, signed with SVC_WEBHOOK_SECRET=(whsec_[0-9a-f]{48})$/m);
      expect(listen.stdout()).toContain(`Forwarding to ${app.url}, signed with`);
      const [registered] = await client.webhooks.list();
      expect(registered).toMatchObject({ id: Number(id), url: listener, event_types: ['credit.low', 'ping.test'] });

      const fired = await run(['trigger', 'credit.low'], env);
      expect(fired.code).toBe(0);
      const [, deliveryId] = /delivery ([0-9a-f-]{36})/.exec(fired.stdout)!;
      await expect.poll(() => app.got.length).toBe(1);
      const { body, signature } = app.got[0]!;
      expect(signature).toBe(sign(body, secret!));
      expect(JSON.parse(body)).toMatchObject({ event: 'credit.low', delivery_id: deliveryId, data: { balance: 90 } });
      await expect.poll(() => listen.stdout()).toContain(`credit.low ${deliveryId} attempt 1 → 500 Internal Server Error: {"error":"db down"} · credits 90, low (threshold 100)\n`);
      await expect.poll(() => emulator.stdout()).toContain(`delivery credit.low → webhook ${id} attempt 1: 500 (${deliveryId})`);

      // A delivery not signed with the registration's secret (which only the emulator knows) is refused, not forwarded.
      const retry = await fetch(listener!, { method: 'POST', headers: { 'x-svc-signature': signature! }, body });
      expect(retry.status).toBe(401);
      await expect.poll(() => listen.stdout()).toContain('refused a delivery: invalid_signature → 401\n');
      const ping = await run(['trigger', 'ping.test'], env);
      const [, pingId] = /delivery ([0-9a-f-]{36})/.exec(ping.stdout)!;
      await expect.poll(() => listen.stdout()).toContain(`ping.test ${pingId} attempt 1 → 200 OK\n`);
      expect(app.got.length).toBe(2);
    } finally {
      expect(await listen.stop('SIGINT')).toBe(0);
      await app.close();
    }
    expect(listen.stdout()).toMatch(/^SIGINT: deleted webhook \d+, stopped$/m);
    expect(await client.webhooks.list()).toEqual([]);
  });

  it('signs forwarded deliveries with SVC_WEBHOOK_SECRET when it is set, and never prints it', async () => {
    const app = await receiver((_, res) => res.writeHead(204).end());
    const listen = start(['listen', '--forward-to', app.url], { ...env, SVC_WEBHOOK_SECRET: 'whsec_from_env' });
    try {
      await listen.waitFor(/^Forwarding to \S+, signed with SVC_WEBHOOK_SECRET \(from the environment\)$/m);
      await run(['trigger', 'job.failed'], env);
      await expect.poll(() => app.got.length).toBe(1);
      expect(app.got[0]!.signature).toBe(sign(app.got[0]!.body, 'whsec_from_env'));
      await expect.poll(() => listen.stdout()).toMatch(/job\.failed \S+ attempt 1 → 204 No Content\n/);
    } finally {
      expect(await listen.stop('SIGTERM')).toBe(0);
      await app.close();
    }
    expect(listen.stdout()).not.toContain('whsec_from_env');
  });

  it('prints why a forward failed (the app is down) and answers 502, so the service retries', async () => {
    const port = await closedPort();
    const listen = start(['listen', '--forward-to', `http://127.0.0.1:${port}/hook`, '--events', 'module.disabled'], env);
    try {
      const [, id] = await listen.waitFor(/webhook (\d+) on/);
      const fired = await run(['trigger', 'module.disabled'], env);
      const [, deliveryId] = /delivery ([0-9a-f-]{36})/.exec(fired.stdout)!;
      await expect
        .poll(() => listen.stdout())
        .toContain(`module.disabled ${deliveryId} attempt 1 → failed: could not reach http://127.0.0.1:${port}/hook: connection refused (ECONNREFUSED): nothing listens there\n`);
      await expect.poll(() => emulator.stdout()).toContain(`delivery module.disabled → webhook ${id} attempt 1: 502 (${deliveryId})`);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });

  it('exits 1 naming the cause when the service cannot be reached to register', async () => {
    const port = await closedPort();
    const { code, stderr } = await run(['listen', '--forward-to', 'http://127.0.0.1:3000/'], { SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_API_KEY: 'vdr_x' });
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`^\\[svc-sdk\\] could not register a webhook on http://127\\.0\\.0\\.1:${port}: .*\\(connection refused \\(ECONNREFUSED\\): nothing listens there\\)\\n$`));
  });

  it('exits 1 with the service\'s status and the --public-url fix when the service refuses the listener\'s URL', async () => {
    const service = await receiver((_, res) =>
      res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"url must be https","field":"url"}'),
    );
    try {
      const { code, stderr } = await run(['listen', '--forward-to', 'http://127.0.0.1:3000/', '--port', '0'], {
        SVC_BASE_URL: service.url.replace('/hook', ''),
        SVC_API_KEY: 'vdr_x',
      });
      expect(code).toBe(1);
      // A refusal keeps the service's reason, even of webhooks.create, which answers a secret (issue 31).
      expect(stderr).toMatch(/POST \/api\/v1\/webhooks\/ failed with 422: url must be https\./);
      expect(stderr).toMatch(/The service cannot deliver to 127\.0\.0\.1: expose port \d+ through a tunnel \(fix it with --port\) and pass its https URL as --public-url\n$/);
    } finally {
      await service.close();
    }
  });

  it('registers --public-url as the webhook\'s URL', async () => {
    const listen = start(['listen', '--forward-to', 'http://127.0.0.1:3000/', '--public-url', 'https://abc.tunnel.example/'], env);
    try {
      await listen.waitFor(/delivers every event kind to https:\/\/abc\.tunnel\.example\/$/m);
      const client = new Client({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, maxRetries: 0 });
      expect(await client.webhooks.list()).toMatchObject([{ url: 'https://abc.tunnel.example/', event_types: null }]);
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });
});
