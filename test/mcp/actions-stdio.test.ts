// `svc-sdk mcp --actions-redis <url>` as a host runs it: the built bin over stdio, the official v2
// client on it, a real redis-server holding a ledger that this test records into (as the
// integrator's webhook worker would). The server lists the ledger's two read-only tools, lists what
// is pending, and waits for a decision the test records meanwhile; no tool decides, and the tools
// leave every key of the ledger as they found it.
import { Client as McpClient } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionLedger, createRedisLedgerStore, type ActionLedger } from '../../src/actions/index.js';
import { approved, proposed, rejected } from '../actions/events.js';
import { built, CLI, cliEnv } from '../cli/support.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from '../inbox/redis.js';
import { structured, tempDir, text } from './support.js';

reportMissingRedis();

const PREFIX = 'stdio-test:actions:';

/** Every key under the ledger's prefix with its value, whatever its type: what a tool must leave unchanged. */
async function snapshot(redis: Redis): Promise<Record<string, unknown>> {
  const keys = (await redis.keys(`${PREFIX}*`)).sort();
  const entries = await Promise.all(
    keys.map(async (key): Promise<[string, unknown]> => {
      const type = await redis.type(key);
      if (type === 'string') return [key, await redis.get(key)];
      if (type === 'zset') return [key, await redis.zrange(key, '0', '-1', 'WITHSCORES')];
      if (type === 'set') return [key, (await redis.smembers(key)).sort()];
      if (type === 'hash') return [key, await redis.hgetall(key)];
      return [key, type];
    }),
  );
  return Object.fromEntries(entries);
}

/** Resolves once `check` holds, reading again every 20 ms (a state, not a guess at how long it takes). */
async function until(check: () => Promise<boolean>, what: string, limitMs = 30_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > limitMs) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!built || !hasRedis)('svc-sdk mcp --actions-redis <url> over stdio (the built bin, the v2 client, a real redis-server)', () => {
  let redisServer: TestRedis;
  let redis: Redis;
  let ledger: ActionLedger;
  let mcp: McpClient;
  let stderr = '';

  beforeAll(async () => {
    redisServer = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'everysec']);
    redis = new Redis({ host: '127.0.0.1', port: redisServer.port });
    ledger = createActionLedger({ store: createRedisLedgerStore(redis, { prefix: PREFIX }) });
    // Two pending, one decided before the server starts (not pending), as the webhook worker recorded them.
    await ledger.record(proposed('act_a', { kind: 'send_email', runId: 'run-7' }));
    await ledger.record(proposed('act_b', { kind: 'capital_call', runId: 'run-7' }));
    await ledger.record(proposed('act_c', { kind: 'send_email', runId: 'run-8' }));
    await ledger.record(rejected('act_c', { runId: 'run-8' }));

    mcp = new McpClient({ name: 'actions-stdio-test', version: '1' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      // Writes and destructive tools listed too: even then, no tool decides.
      args: [CLI, 'mcp', '--emulator', '--allow-writes', '--allow-destructive', '--state-dir', tempDir(), '--actions-redis', `redis://127.0.0.1:${redisServer.port}`, '--actions-prefix', PREFIX],
      env: cliEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await mcp.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await mcp?.close();
    await ledger?.close();
    redis?.disconnect();
    await redisServer?.stop();
    redisServer?.remove();
  });

  it('lists action_pending_list and action_wait, read-only, and no tool that approves, rejects or decides', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.filter((tool) => tool.name.startsWith('action_')).map((tool) => tool.name), stderr).toEqual(['action_pending_list', 'action_wait']);
    for (const name of ['action_pending_list', 'action_wait']) {
      expect(tools.find((tool) => tool.name === name)?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
    expect(tools.map((tool) => tool.name).filter((name) => /approv|reject|decid|decision/i.test(name))).toEqual([]);
    // A description may say that the GP decides (what the tool reads or waits for), or that the tool
    // never does; no other sentence of any tool's description speaks of approving, rejecting or deciding.
    const deciding = tools.flatMap((tool) =>
      (tool.description ?? '')
        .split(/(?<=\.)\s+/)
        .filter((sentence) => /approv|reject|decid/i.test(sentence) && !/\bthe GP (to )?(approve|reject|decide)|\b(never|not|no)\b/i.test(sentence))
        .map((sentence) => `${tool.name}: ${sentence}`),
    );
    expect(deciding).toEqual([]);
    const waitDescription = tools.find((tool) => tool.name === 'action_wait')?.description;
    expect(waitDescription).toMatch(/Waits for the GP to approve or reject/);
    expect(waitDescription).toMatch(/Never decides/);
    // And no tool takes a decision as input.
    const decisionInputs = tools.filter((tool) => Object.keys(tool.inputSchema.properties ?? {}).some((field) => /approv|reject|decision|decide|status/i.test(field)));
    expect(decisionInputs.map((tool) => tool.name)).toEqual([]);
  });

  it('action_wait waits for a decision recorded meanwhile by another process, and resolves with it; the tools change nothing', async () => {
    const channel = `${PREFIX}decided`;
    const subscribers = async () => Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]);
    // The server's ledger subscribes to the decision channel at its first wait: none yet.
    expect(await subscribers()).toBe(0);
    let settled = false;
    const waiting = mcp.callTool({ name: 'action_wait', arguments: { action_id: 'act_a', timeout_seconds: 120 } }, { timeout: 180_000 }).finally(() => (settled = true));
    // Subscribed: the wait is under way, and it has not answered before any decision.
    await until(async () => (await subscribers()) >= 1, 'the server subscribed to the decision channel');
    expect((await ledger.get('act_a'))?.status).toBe('pending');
    expect(settled).toBe(false);

    await ledger.record(approved('act_a', { runId: 'run-7' }));
    const afterDecision = await snapshot(redis);
    const decided = await waiting;
    expect(decided.isError, text(decided)).toBeFalsy();
    expect(structured(decided)).toEqual({ action_id: 'act_a', status: 'approved', decision: { status: 'approved', result: { sent: true } } });
    expect(text(decided)).toBe('Action act_a: approved.');

    const still = await mcp.callTool({ name: 'action_pending_list', arguments: {} });
    expect(structured(still).actions.map((action: { actionId: string }) => action.actionId)).toEqual(['act_b']);
    expect(await snapshot(redis)).toEqual(afterDecision);
    // Nothing claimed a handler run or queued one: the server only read.
    expect(Object.keys(afterDecision).filter((key) => /:(handlers|todo:|lease:|runs:|done:)/.test(key))).toEqual([]);
    expect(await ledger.handled('act_a')).toEqual({ runs: 0, done: false });
  }, 200_000);

  it('lists the pending actions as recorded meanwhile (oldest first, filtered by kind), answers a wait on a decided or still pending one, and leaves the ledger as it was', async () => {
    // Recorded while the server runs: it reads the shared store, not a copy.
    await ledger.record(proposed('act_d', { kind: 'send_email', runId: 'run-9' }));
    const before = await snapshot(redis);
    const all = await mcp.callTool({ name: 'action_pending_list', arguments: {} });
    expect(all.isError, text(all)).toBeFalsy();
    expect(structured(all).actions).toMatchObject([
      { actionId: 'act_b', status: 'pending', kind: 'capital_call', runId: 'run-7', expiresAt: { estimated: true } },
      { actionId: 'act_d', status: 'pending', kind: 'send_email', runId: 'run-9', expiresAt: { estimated: true } },
    ]);
    expect(structured(all).actions).toHaveLength(2);
    expect(text(all)).toBe('2 pending action(s): act_b (capital_call), act_d (send_email).');
    const calls = await mcp.callTool({ name: 'action_pending_list', arguments: { kind: 'capital_call' } });
    expect(structured(calls).actions.map((action: { actionId: string }) => action.actionId)).toEqual(['act_b']);
    const timedOut = await mcp.callTool({ name: 'action_wait', arguments: { action_id: 'act_b', timeout_seconds: 0.2 } });
    expect(structured(timedOut)).toEqual({ action_id: 'act_b', status: 'timeout' });
    const decidedBefore = await mcp.callTool({ name: 'action_wait', arguments: { action_id: 'act_c', timeout_seconds: 5 } });
    expect(structured(decidedBefore)).toEqual({ action_id: 'act_c', status: 'rejected', decision: { status: 'rejected', reason: 'Not now' } });
    expect(await snapshot(redis)).toEqual(before);
  });
});
