// `svc-sdk actions` (the built bin) against a real redis-server holding an action ledger: pending
// lists what is pending, show prints one action, watch prints decisions as another process records
// them; nothing it does records, claims or decides.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createActionLedger, createRedisLedgerStore, type ActionLedger } from '../../src/actions/index.js';
import { approved, delivery, proposed, rejected } from '../actions/events.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from '../inbox/redis.js';
import { built, run, start } from './support.js';

reportMissingRedis();

describe.skipIf(!hasRedis || !built)('svc-sdk actions pending | watch | show', () => {
  let redis: TestRedis;
  let client: Redis;
  let ledger: ActionLedger;
  let url: string;
  beforeAll(async () => {
    redis = await startTestRedis();
    url = `redis://127.0.0.1:${redis.port}`;
    client = new Redis({ host: '127.0.0.1', port: redis.port });
    ledger = createActionLedger({ store: createRedisLedgerStore(client, { acceptNoPersistence: true }) });
    await ledger.record(proposed('act_1', { runId: 'run_a', kind: 'send_email', timestamp: '2026-03-01T10:00:00.000Z' }));
    await ledger.record(proposed('act_2', { runId: 'run_b', kind: 'capital_call', timestamp: '2026-03-01T11:00:00.000Z' }));
    await ledger.record(proposed('act_3', { runId: 'run_a', kind: 'send_email' }));
    await ledger.record(approved('act_3'));
    // A proposal that tries to rewrite the terminal: printed escaped (JSON's \u001b, never the byte).
    await ledger.record(delivery('action.approval_required', { action_id: 'act_4', run_id: 'run_c', kind: 'post_note', proposal: { text: '\u001b[2Jpwned' } }, { timestamp: '2026-03-01T12:00:00.000Z' }));
  });
  afterAll(async () => {
    await ledger?.close();
    client?.disconnect();
    await redis?.stop();
    redis?.remove();
  });

  test('pending prints one line per pending action, oldest proposal first, with its estimated expiry; --kind and --run filter', async () => {
    const result = await run(['actions', 'pending', '--redis', url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'act_1  pending  send_email  run run_a  expires ~2026-03-02T10:00:00.000Z  {"to":"lp@example.com"}',
      'act_2  pending  capital_call  run run_b  expires ~2026-03-02T11:00:00.000Z  {"to":"lp@example.com"}',
      'act_4  pending  post_note  run run_c  expires ~2026-03-02T12:00:00.000Z  {"text":"\\u001b[2Jpwned"}',
      '3 pending',
    ]);
    expect(result.stdout).not.toContain('\u001b'); // the raw escape byte never reaches the terminal
    expect((await run(['actions', 'pending', '--kind', 'capital_call'], { SVC_ACTIONS_REDIS: url })).stdout).toMatch(/^act_2 .*\n1 pending\n$/);
    const json = await run(['actions', 'pending', '--run', 'run_a', '--json', '--redis', url]);
    expect(JSON.parse(json.stdout)).toMatchObject({ actionId: 'act_1', status: 'pending', runId: 'run_a', expiresAt: { estimated: true } });
  });

  test('show prints the action as JSON; an unknown id exits 1 naming it', async () => {
    const shown = await run(['actions', 'show', 'act_3', '--redis', url]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ actionId: 'act_3', status: 'approved', decision: { status: 'approved', result: { sent: true } } });
    const missing = await run(['actions', 'show', 'act_404', '--redis', url]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^\[svc-sdk\] actions show: no action "act_404" in the ledger/);
  });

  test('watch prints each decision another process records, and new pending actions; it claims no handler', async () => {
    const watching = start(['actions', 'watch', '--redis', url]);
    await watching.waitFor(/^watching:/m);
    await ledger.record(rejected('act_1'));
    await watching.waitFor(/^act_1 {2}rejected .*reason "Not now"$/m);
    await ledger.record(proposed('act_5', { runId: 'run_d' }));
    await watching.waitFor(/^act_5 {2}pending /m);
    expect(await watching.stop('SIGINT')).toBe(0);
    expect(await ledger.handled('act_1')).toEqual({ runs: 0, done: false });
  });

  test('misuse is a usage error (exit 2) naming the fix', async () => {
    expect(await run(['actions'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^\[svc-sdk\] actions needs an action: pending, watch or show/) });
    expect(await run(['actions', 'decide', 'act_1'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown actions action "decide": use pending, watch or show/) });
    expect(await run(['actions', 'show'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/actions show needs an action id/) });
    expect(await run(['actions', 'pending', '--redis', 'http://x'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/must be a redis:\/\/ or rediss:\/\/ URL/) });
  });
});
