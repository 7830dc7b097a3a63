// `svc-sdk inbox` (the built bin) against a real redis-server holding an inbox with dead letters.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bullmqInbox, type BullmqInbox } from '../../src/inbox/index.js';
import { freePort } from '../webhooks/redis-server.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from '../inbox/redis.js';
import { createServer as createNetServer, type Socket } from 'node:net';
import { built, run, start } from './support.js';

reportMissingRedis();

/** A stored delivery envelope. */
function entry(deliveryId: string, receivedAt = Date.now(), kind = 'credit.low') {
  const body = JSON.stringify({ event: kind, version: '1.0', delivery_id: deliveryId, timestamp: new Date().toISOString(), data: { balance: 1, threshold: 5 } });
  return { deliveryId, kind, body, receivedAt };
}

describe.skipIf(!hasRedis || !built)('svc-sdk inbox stats | ls | show | dead | replay', () => {
  let redis: TestRedis;
  let inbox: BullmqInbox;
  let url: string;
  beforeAll(async () => {
    redis = await startTestRedis(['--appendonly', 'yes']);
    url = `redis://127.0.0.1:${redis.port}`;
    inbox = bullmqInbox({ connection: { port: redis.port }, queue: 'cli', warn: () => {} });
    for (const id of ['dead-1', 'dead-2', 'fine']) await inbox.put(entry(id, Date.parse('2026-03-01T10:00:00Z') + Number(id.at(-1) === 'e' ? 0 : id.at(-1)) * 60_000));
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

  test('dead prints one line per dead letter (id, status, kind, attempts, stored at, last error with its control characters escaped)', async () => {
    const result = await run(['inbox', 'dead', '--queue', 'cli'], { SVC_INBOX_REDIS: url });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('dead-1  dead  credit.low  1 attempt  2026-03-01T10:01:00.000Z  CRM said \\x1b[2J\\x1b]0;pwned\\x07no');
    expect(lines[1]).toMatch(/^dead-2 {2}dead {2}credit\.low {2}1 attempt {2}2026-03-01T10:02:00\.000Z/);
    expect(lines[2]).toMatch(/^2 deliveries \(2 dead\): svc-sdk inbox replay/);
    expect(result.stdout).not.toContain('\u001b');
  });

  test('ls filters by --status, --kind, --since and --until; show prints one delivery whole', async () => {
    const cli = ['--redis', url, '--queue', 'cli'];
    const ids = (stdout: string) => stdout.trimEnd().split('\n').slice(0, -1).map((line) => line.split('  ')[0]);
    expect(ids((await run(['inbox', 'ls', ...cli])).stdout)).toEqual(['fine', 'dead-1', 'dead-2']);
    expect(ids((await run(['inbox', 'ls', '--status', 'completed', ...cli])).stdout)).toEqual(['fine']);
    expect(ids((await run(['inbox', 'ls', '--status', 'dead,completed', '--since', '2026-03-01T10:01:00Z', ...cli])).stdout)).toEqual(['dead-1', 'dead-2']);
    expect(ids((await run(['inbox', 'ls', '--until', '2026-03-01T10:02:00Z', '--kind', 'credit.low', ...cli])).stdout)).toEqual(['fine', 'dead-1']);
    expect((await run(['inbox', 'ls', '--kind', 'ping.test', ...cli])).stdout).toBe('no deliveries match\n');
    expect((await run(['inbox', 'ls', '--since', '1h', ...cli])).stdout).toBe('no deliveries match\n');
    const shown = await run(['inbox', 'show', 'dead-2', ...cli]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^delivery_id {3}dead-2\nkind {10}credit\.low\nstatus {8}dead\nattempts {6}1\nstored {8}2026-03-01T10:02:00\.000Z\n/);
    expect(shown.stdout).toContain('"delivery_id": "dead-2"');
    const missing = await run(['inbox', 'show', 'nope', ...cli]);
    expect([missing.code, missing.stderr]).toEqual([1, '[svc-sdk] inbox show: no delivery "nope" in the inbox (processed ones are kept 24 h): svc-sdk inbox ls lists them\n']);
    expect((await run(['inbox', 'ls', '--status', 'failed', ...cli])).stderr).toMatch(/--status "failed" must be one of waiting, active, delayed, completed, dead/);
    expect((await run(['inbox', 'ls', '--since', 'yesterday', ...cli])).stderr).toMatch(/--since "yesterday" must be an ISO date .* or a time ago \(30m, 2h, 7d\)/);
    expect((await run(['inbox', 'stats', '--kind', 'x', ...cli])).stderr).toMatch(/inbox stats takes no --kind/);
  });

  test('an unknown queue is one line naming the queues there, exit 1, never zeros', async () => {
    const typo = await run(['inbox', 'stats', '--redis', url, '--queue', 'clii']);
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe('[svc-sdk] inbox: no queue "clii" in this Redis (prefix bull): nothing was ever stored in it; pass the receivers\' queue (queue option, or --queue); queues here: cli\n');
  });

  test('replay by filters: a dry-run count, --yes needed without a terminal; replay <id>; a waiting one is refused', async () => {
    const cli = ['--redis', url, '--queue', 'cli'];
    const counted = await run(['inbox', 'replay', '--kind', 'credit.low', '--since', '2026-03-01T10:02:00Z', '--dry-run', ...cli]);
    expect([counted.code, counted.stdout]).toEqual([0, 'would replay 1: dead-2\n']);
    const unasked = await run(['inbox', 'replay', '--all', ...cli]);
    expect(unasked.code).toBe(2);
    expect(unasked.stdout).toBe('would replay 2: dead-1, dead-2\n');
    expect(unasked.stderr).toBe('[svc-sdk] inbox replay: pass --yes to replay these 2 (no terminal to ask), or --dry-run to count only\n');
    expect(await inbox.stats()).toMatchObject({ dead: 2 });
    const one = await run(['inbox', 'replay', 'dead-1', ...cli]);
    expect(one.stdout).toBe('replayed 1: dead-1\n');
    // dead-1 now waits for a worker: replaying it again would run it twice.
    const again = await run(['inbox', 'replay', 'dead-1', ...cli]);
    expect([again.code, again.stderr]).toEqual([1, '[svc-sdk] inbox.replay: delivery "dead-1" is waiting: it will finish anyway, and a replay would run it twice; replay it once it is processed or dead\n']);
    const all = await run(['inbox', 'replay', '--all', '--yes', ...cli]);
    expect(all.stdout).toBe('would replay 1: dead-2\nreplayed 1\n');
    expect(await inbox.stats()).toMatchObject({ waiting: 2, dead: 0 });
    const none = await run(['inbox', 'replay', '--all', ...cli]);
    expect(none.stdout).toBe('nothing to replay: no delivery matches\n');
    expect((await run(['inbox', 'replay', ...cli])).stderr).toMatch(/takes a delivery id, --all, or filters/);
    expect((await run(['inbox', 'replay', '--all', '--kind', 'x', ...cli])).stderr).toMatch(/--all replays every dead letter: drop --kind/);
    const unknown = await run(['inbox', 'replay', 'nope', '--redis', url, '--queue', 'cli']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no delivery "nope" in the inbox/);
  });

  test('misuse is exit 2 with the fix; a Redis nobody listens on fails fast without printing its password', async () => {
    expect((await run(['inbox'])).stderr).toMatch(/inbox needs an action: demo, stats, ls, show, dead, replay, ui/);
    expect((await run(['inbox', 'replay', '--redis', url])).stderr).toMatch(/a delivery id, --all, or filters/);
    expect((await run(['inbox', 'stats', 'x', '--redis', url])).stderr).toMatch(/takes no delivery id/);
    const bad = await run(['inbox', 'stats', '--redis', 'http://:hunter2@127.0.0.1:1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('[svc-sdk] --redis "http://[redacted]:[redacted]@127.0.0.1:1" must be a redis:// or rediss:// URL, such as redis://127.0.0.1:6379\n');
    const port = await freePort();
    const started = Date.now();
    const down = await run(['inbox', 'stats', '--redis', `redis://user:s3cret-pass@127.0.0.1:${port}`]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(`[svc-sdk] inbox: cannot reach Redis at redis://[redacted]:[redacted]@127.0.0.1:${port} (ECONNREFUSED): start it (redis-server) or pass its address (connection, or --redis redis://host:port)\n`);
    expect(down.stderr + down.stdout).not.toContain('s3cret-pass');
  });

  test('a wrong password is one line with the fix, no password; a peer that never answers ends at --timeout', async () => {
    const locked = await startTestRedis(['--requirepass', 'the-right-one-123']);
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const wrong = await run(['inbox', 'ls', '--redis', `redis://:Wr0ng-pass@127.0.0.1:${locked.port}`]);
      expect([wrong.code, wrong.stderr]).toEqual([1, `[svc-sdk] inbox: Redis at redis://[redacted]:[redacted]@127.0.0.1:${locked.port} refused the password (WRONGPASS): pass the right one in the connection (redis://:<password>@host:port, or --redis)\n`]);
      const port = (silent.address() as { port: number }).port;
      const started = Date.now();
      const hung = await run(['inbox', 'stats', '--timeout', '500', '--redis', `rediss://ops:s3cret@127.0.0.1:${port}`]);
      expect(Date.now() - started).toBeLessThan(8000);
      expect(hung.code).toBe(1);
      expect(hung.stderr).toMatch(/^\[svc-sdk\] inbox stats: Redis at rediss:\/\/\[redacted\]:\[redacted\]@127\.0\.0\.1:\d+ did not answer within 500 ms/);
      expect(wrong.stderr + hung.stderr).not.toMatch(/Wr0ng-pass|s3cret|the-right-one/);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
      await locked.stop();
      locked.remove();
    }
  });

  test('ui serves bull-board on loopback behind SVC_INBOX_UI_SECRET, read-only, until SIGTERM; without the secret it says how to set one', async () => {
    expect((await run(['inbox', 'ui', '--redis', url, '--queue', 'cli'])).stderr).toMatch(/inbox ui needs SVC_INBOX_UI_SECRET, a secret of at least 16 characters .*openssl rand -hex 16/);
    const secret = 'ui-secret-0123456789abcdef';
    const ui = start(['inbox', 'ui', '--redis', url, '--queue', 'cli'], { SVC_INBOX_UI_SECRET: secret });
    const [, address] = await ui.waitFor(/inbox dashboard on (http:\/\/127\.0\.0\.1:\d+\/) \(read-only\)/);
    expect((await fetch(`${address}api/queues`)).status).toBe(401);
    const signedIn = await fetch(`${address}api/queues?activeQueue=cli&status=completed&page=1`, { headers: { authorization: `Basic ${btoa(`ops:${secret}`)}` } });
    expect(signedIn.status).toBe(200);
    expect(JSON.stringify(await signedIn.json())).toContain('delivery_id fine');
    expect((await fetch(`${address}api/queues/cli/retry/failed`, { method: 'PUT', headers: { authorization: `Basic ${btoa(`ops:${secret}`)}` } })).status).toBe(403);
    expect(await ui.stop('SIGTERM')).toBe(0);
    expect(ui.stdout() + ui.stderr()).not.toContain(secret);
  });
});
