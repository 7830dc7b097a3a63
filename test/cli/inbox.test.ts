// `svc-sdk inbox` (the built bin) against a real redis-server holding an inbox with dead letters.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bullmqInbox, type BullmqInbox } from '../../src/inbox/index.js';
import { freePort } from '../webhooks/redis-server.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from '../inbox/redis.js';
import { built, run } from './support.js';

reportMissingRedis();

/** A stored delivery envelope. */
function entry(deliveryId: string) {
  const body = JSON.stringify({ event: 'credit.low', version: '1.0', delivery_id: deliveryId, timestamp: new Date().toISOString(), data: { balance: 1, threshold: 5 } });
  return { deliveryId, kind: 'credit.low', body, receivedAt: Date.now() };
}

describe.skipIf(!hasRedis || !built)('svc-sdk inbox stats | dead | replay', () => {
  let redis: TestRedis;
  let inbox: BullmqInbox;
  let url: string;
  beforeAll(async () => {
    redis = await startTestRedis(['--appendonly', 'yes']);
    url = `redis://127.0.0.1:${redis.port}`;
    inbox = bullmqInbox({ connection: { port: redis.port }, queue: 'cli', warn: () => {} });
    for (const id of ['dead-1', 'dead-2', 'fine']) await inbox.put(entry(id));
    // Dead letters whose last error tries to rewrite the terminal: the CLI prints it escaped.
    const worker = inbox.process(
      (event) => {
        if (event.delivery_id !== 'fine') throw new Error('CRM said \u001b[2J\u001b]0;pwned\u0007no');
      },
      { attempts: 1 },
    );
    const deadline = Date.now() + 10_000;
    while ((await inbox.stats()).dead < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await worker.close();
  });
  afterAll(async () => {
    await inbox?.close();
    await redis?.stop();
    redis?.remove();
  });

  test('stats prints each state\'s count', async () => {
    const result = await run(['inbox', 'stats', '--redis', url, '--queue', 'cli']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^waiting\s+0$/m);
    expect(result.stdout).toMatch(/^completed\s+1$/m);
    expect(result.stdout).toMatch(/^dead\s+2$/m);
  });

  test('dead prints one line per dead letter (id, kind, attempts, last error with its control characters escaped)', async () => {
    const result = await run(['inbox', 'dead', '--queue', 'cli'], { SVC_INBOX_REDIS: url });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('dead-1  credit.low  1 attempt  CRM said \\x1b[2J\\x1b]0;pwned\\x07no');
    expect(lines[1]).toMatch(/^dead-2 {2}credit\.low {2}1 attempt {2}/);
    expect(lines[2]).toMatch(/^2 dead letters: svc-sdk inbox replay/);
    expect(result.stdout).not.toContain('\u001b');
  });

  test('replay <id> and replay --all queue dead letters again; a running or waiting one is not replayed twice', async () => {
    const one = await run(['inbox', 'replay', 'dead-1', '--redis', url, '--queue', 'cli']);
    expect(one.stdout).toBe('replayed 1: dead-1\n');
    // dead-1 now waits for a worker: replaying it again would run it twice.
    const again = await run(['inbox', 'replay', 'dead-1', '--redis', url, '--queue', 'cli']);
    expect(again.stdout).toBe('dead-1 is waiting or running already: not replayed\n');
    const all = await run(['inbox', 'replay', '--all', '--redis', url, '--queue', 'cli']);
    expect(all.stdout).toBe('replayed 1: dead-2\n');
    expect(await inbox.stats()).toMatchObject({ waiting: 2, dead: 0 });
    const none = await run(['inbox', 'replay', '--all', '--redis', url, '--queue', 'cli']);
    expect(none.stdout).toBe('no dead letters to replay\n');
    const unknown = await run(['inbox', 'replay', 'nope', '--redis', url, '--queue', 'cli']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no delivery "nope" in the inbox/);
  });

  test('misuse is exit 2 with the fix; a Redis nobody listens on fails fast without printing its password', async () => {
    expect((await run(['inbox'])).stderr).toMatch(/inbox needs an action: stats, dead or replay/);
    expect((await run(['inbox', 'replay', '--redis', url])).stderr).toMatch(/a delivery id or --all/);
    expect((await run(['inbox', 'stats', 'x', '--redis', url])).stderr).toMatch(/takes no delivery id/);
    const bad = await run(['inbox', 'stats', '--redis', 'http://127.0.0.1:1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/must be a redis:\/\/ or rediss:\/\/ URL/);
    const port = await freePort();
    const started = Date.now();
    const down = await run(['inbox', 'stats', '--redis', `redis://user:s3cret-pass@127.0.0.1:${port}`]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/\[svc-sdk\] inbox stats: .*ECONNREFUSED/);
    expect(down.stderr + down.stdout).not.toContain('s3cret-pass');
  });
});
