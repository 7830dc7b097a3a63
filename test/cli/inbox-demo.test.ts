// `svc-sdk inbox demo` in this process against a real redis-server (with a password, so that every
// line can be checked for it): the emulator's deliveries go through the receiver, Redis and the
// worker and the command exits 0 with the queue's counts; with --deliveries 0 it serves until
// stopped and processes what `svc-sdk trigger` fires at it; an unreachable Redis or a wrong password
// is one line with the fix, quickly. After each run every connection it opened is closed (Redis's
// CLIENT LIST) and no signal handler is left: nothing keeps the process alive.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../webhooks/redis-server.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from '../inbox/redis.js';
import { built, run, start, startBin } from './support.js';

reportMissingRedis();

const PASSWORD = 'demo-pass-0123456789';
const handlers = () => [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];

describe.skipIf(!hasRedis)('svc-sdk inbox demo', () => {
  let redis: TestRedis;
  let url: string;
  let admin: Redis;
  /** The connections Redis holds besides the test's own. */
  const othersConnected = async () => String(await admin.client('LIST')).trim().split('\n').length - 1;

  beforeAll(async () => {
    redis = await startTestRedis(['--appendonly', 'yes', '--requirepass', PASSWORD]);
    url = `redis://:${PASSWORD}@127.0.0.1:${redis.port}`;
    admin = new Redis({ port: redis.port, password: PASSWORD, lazyConnect: true });
    await admin.connect();
  });
  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
    redis?.remove();
  });

  test('processes every delivery it fires, prints one line each and the queue\'s counts, exits 0, leaves nothing open', async () => {
    const before = handlers();
    const result = await run(['inbox', 'demo', '--deliveries', '4', '--redis', url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const processed = result.stdout.match(/^processed [0-9a-f-]{36}: document\.uploaded memo-\d\.pdf \(attempt 1\)$/gm) ?? [];
    expect(processed).toHaveLength(4);
    expect(new Set(processed.map((line) => /memo-\d/.exec(line)![0]))).toEqual(new Set(['memo-1', 'memo-2', 'memo-3', 'memo-4']));
    expect(result.stdout).toMatch(/^receiver on http:\/\/127\.0\.0\.1:\d+\/webhooks, worker running on queue svc-webhooks-demo, Redis redis:\/\/\[redacted\]:\[redacted\]@127\.0\.0\.1:\d+$/m);
    expect(result.stdout).toContain('4 deliveries processed through the inbox\n');
    expect(result.stdout).toMatch(/queue svc-webhooks-demo \(svc-sdk inbox stats --queue svc-webhooks-demo shows it again\):\nwaiting {3}0\nactive {4}0\ndelayed {3}0\ncompleted 4\ndead {6}0\n$/);
    expect(result.stdout).not.toContain(PASSWORD);
    // Its own queue: the stats command reads the same counts there, and a real inbox's queue was never made.
    const stats = await run(['inbox', 'stats', '--queue', 'svc-webhooks-demo'], { SVC_INBOX_REDIS: url });
    expect([stats.code, stats.stdout]).toEqual([0, 'waiting   0\nactive    0\ndelayed   0\ncompleted 4\ndead      0\n']);
    expect(await admin.exists('bull:svc-webhooks:events')).toBe(0);
    expect(await othersConnected()).toBe(0);
    expect(handlers()).toEqual(before);
  }, 60_000);

  test('--deliveries 0 serves until stopped: what svc-sdk trigger fires at its emulator is processed; SIGINT closes it all, exit 0', async () => {
    const before = handlers();
    const demo = start(['inbox', 'demo', '--deliveries', '0', '--queue', 'demo-serving'], { SVC_INBOX_REDIS: url });
    const [, receiver] = await demo.waitFor(/^receiver on (http:\/\/127\.0\.0\.1:\d+\/webhooks)/m);
    const [, emulator] = await demo.waitFor(/fire more with svc-sdk trigger document\.uploaded --emulator (http:\/\/127\.0\.0\.1:\d+)/);
    expect(demo.stdout()).toContain('Press Ctrl+C to stop.');
    // The receiver is real: an unsigned request is refused.
    expect((await fetch(receiver!, { method: 'POST', body: '{}' })).status).toBe(401);
    for (let n = 0; n < 2; n++) {
      const fired = await run(['trigger', 'document.uploaded', '--emulator', emulator!]);
      expect(fired.code, fired.stderr).toBe(0);
    }
    await demo.waitFor(/(^processed .*\n){2}/m);
    expect(demo.exitCode()).toBeNull();
    expect(await demo.stop('SIGINT')).toBe(0);
    expect(demo.stderr()).toBe('');
    expect(demo.stdout()).toMatch(/queue demo-serving \(svc-sdk inbox stats --queue demo-serving shows it again\):\n[\s\S]*^completed 2$/m);
    expect(demo.stdout()).not.toContain(PASSWORD);
    expect(await othersConnected()).toBe(0);
    expect(handlers()).toEqual(before);
    // Stopped, it serves no more.
    await expect(fetch(receiver!, { method: 'POST', body: '{}' })).rejects.toThrow();
  }, 60_000);

  test.skipIf(!built)('the bin, serving: SIGTERM (docker stop, a CI cancel) ends the process, exit 0, its connections closed', async () => {
    const demo = startBin(['inbox', 'demo', '--deliveries', '0', '--queue', 'demo-bin'], { SVC_INBOX_REDIS: url });
    await demo.waitFor(/Press Ctrl\+C to stop\./);
    expect(await othersConnected()).toBeGreaterThan(0);
    expect(await demo.stop('SIGTERM')).toBe(0);
    expect(demo.stdout()).toMatch(/^queue demo-bin .*:\n/m);
    await expect.poll(othersConnected).toBe(0);
  }, 60_000);

  test('an unreachable Redis, a wrong password: one line with the fix and no password, exit 1, quickly, nothing started', async () => {
    const port = await freePort();
    const started = Date.now();
    const down = await run(['inbox', 'demo', '--redis', `redis://ops:s3cret-pass@127.0.0.1:${port}`]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect([down.code, down.stdout]).toEqual([1, '']);
    expect(down.stderr).toBe(`[svc-sdk] inbox: cannot reach Redis at redis://[redacted]:[redacted]@127.0.0.1:${port} (ECONNREFUSED): start it (redis-server) or pass its address (connection, or --redis redis://host:port)\n`);
    const wrong = await run(['inbox', 'demo'], { SVC_INBOX_REDIS: `redis://:Wr0ng-pass@127.0.0.1:${redis.port}` });
    expect([wrong.code, wrong.stdout]).toEqual([1, '']);
    expect(wrong.stderr).toBe(`[svc-sdk] inbox: Redis at redis://[redacted]:[redacted]@127.0.0.1:${redis.port} refused the password (WRONGPASS): pass the right one in the connection (redis://:<password>@host:port, or --redis)\n`);
    expect(down.stderr + wrong.stderr).not.toMatch(/s3cret-pass|Wr0ng-pass/);
    expect(await othersConnected()).toBe(0);
  }, 60_000);

  test('misuse: its flags checked, a typo of it suggested, --help says it', async () => {
    expect((await run(['inbox', 'dmo'])).stderr).toMatch(/^\[svc-sdk\] unknown inbox action "dmo": did you mean "demo"\? use demo, stats, ls, /);
    expect((await run(['inbox', 'demo', '--deliveries', 'five'])).stderr).toBe('[svc-sdk] --deliveries must be a whole number from 0 to 10000, got "five"\n');
    expect((await run(['inbox', 'demo', '--delivery', '3'])).stderr).toMatch(/Unknown option '--delivery': did you mean "--deliveries"\?/);
    expect((await run(['inbox', 'stats', '--deliveries', '3'])).stderr).toBe('[svc-sdk] inbox stats takes no --deliveries: it is demo\'s\n');
    expect((await run(['inbox', 'demo', '--redis', `http://:${PASSWORD}@127.0.0.1:1`])).stderr).not.toContain(PASSWORD);
    const help = await run(['inbox', '--help']);
    expect(help.stdout).toMatch(/^Usage: svc-sdk inbox demo \[--deliveries <n>\] \[--port <n>\]$/m);
    expect((await run(['--help'])).stdout).toMatch(/inbox .*: demo, stats, ls/);
  });
});
