// The README's BullMQ workflow (examples/bullmq-approval-workflow.mjs, the built package) across a
// restart of every process: the emulator plays the service in this process; the receiver, the
// worker and redis-server (append-only, fsync always) run apart. Three workflows propose and wait;
// everything is SIGKILLed while they wait and started again; only then does the GP decide, and each
// workflow must finish exactly once with its decision. The fallback recheck is set to 10 minutes,
// so only the ledger's onDecision resume can finish them within the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Client } from '../../src/index.js';
import { createActionLedger, createRedisLedgerStore } from '../../src/actions/index.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { freePort } from '../webhooks/redis-server.js';
import { built } from './built.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from '../inbox/redis.js';

reportMissingRedis();

const EXAMPLE = fileURLToPath(new URL('../../examples/bullmq-approval-workflow.mjs', import.meta.url));
const QUEUE = 'approval-workflows';
const API_KEY = 'vdr_workflow_test';

let redis: TestRedis;
let emulator: Emulator;
const children = new Set<ChildProcess>();

/** Starts one role of the example; resolves once it printed its `ready` line. */
function startRole(role: 'receiver' | 'worker', env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EXAMPLE, role], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += String(chunk);
      if (output.includes(`${role} ready`)) resolve(child);
    });
    child.once('exit', (code, signal) => reject(new Error(`the ${role} exited (${code ?? signal}) before it was ready: ${output}`)));
  });
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

/** Polls `read` until `done` holds for what it returns (no fixed sleep: the machine may be slow). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  if (!hasRedis || !built) return;
  redis = await startTestRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
  emulator = createEmulator({ deliveryDelayMs: 0, apiKey: API_KEY });
});
afterAll(async () => {
  await Promise.all([...children].map(kill));
  await emulator?.close();
  await redis?.stop();
  redis?.remove();
});

test.skipIf(!hasRedis || !built)('a BullMQ workflow waits for the GP across a SIGKILL of every process (receiver, worker, redis-server) and finishes once with the decision', async () => {
  const { url } = await emulator.listen(0);
  const receiverPort = await freePort(); // fixed across the restart: the webhook points at it
  const client = new Client({ apiKey: API_KEY, baseUrl: url, maxRetries: 0 });
  const { secret } = await client.webhooks.create({ url: `http://127.0.0.1:${receiverPort}/webhooks`, name: 'workflow', event_types: null });
  const redisUrl = `redis://127.0.0.1:${redis.port}`;
  const env = { REDIS_URL: redisUrl, PORT: String(receiverPort), SVC_WEBHOOK_SECRET: secret, SVC_BASE_URL: url, SVC_API_KEY: API_KEY, WORKFLOW_RECHECK_MS: '600000' };
  const start = () => Promise.all([startRole('receiver', env), startRole('worker', env)]);
  let roles = await start();

  const open = () => {
    const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const store = connection.duplicate();
    for (const client of [connection, store]) client.on('error', () => {}); // Redis is killed on purpose
    return { connection, queue: new Queue(QUEUE, { connection }), ledger: createActionLedger({ store: createRedisLedgerStore(store) }) };
  };
  let here = open();
  const plan = { 'wf-approve': 'capital_call', 'wf-reject': 'send_email', 'wf-expire': 'transaction' } as const;
  for (const [jobId, kind] of Object.entries(plan)) await here.queue.add('workflow', { kind, proposal: { job: jobId } }, { jobId });

  // Each workflow proposed (the ledger has the action pending, under the job's run) and sleeps in the delayed set.
  const actionIds: Record<string, string> = {};
  for (const jobId of Object.keys(plan)) {
    const job = await until(() => Job.fromId(here.queue, jobId), (found) => typeof found?.data.actionId === 'string', `${jobId} to propose`);
    actionIds[jobId] = job!.data.actionId as string;
    await until(() => here.queue.getJobState(jobId), (state) => state === 'delayed', `${jobId} to wait`);
    await until(() => here.ledger.get(actionIds[jobId]!), (action) => action?.status === 'pending', `${jobId}'s action pending`);
    expect((await here.ledger.get(actionIds[jobId]!))?.runId).toBe(`wf:${jobId}`);
  }
  expect(new Set(Object.values(actionIds)).size).toBe(3);

  // Every process dies while the workflows wait: the roles, this process's connections, and Redis itself.
  await Promise.all(roles.map(kill));
  here.connection.disconnect();
  await here.ledger.close().catch(() => undefined);
  await here.queue.close().catch(() => undefined);
  await redis.stop(true);
  await redis.restart();
  roles = await start();
  here = open();
  for (const jobId of Object.keys(plan)) {
    expect(await here.queue.getJobState(jobId)).toBe('delayed');
    expect((await here.ledger.get(actionIds[jobId]!))?.status).toBe('pending');
  }

  // The GP decides, in the service.
  await emulator.actions.approve(actionIds['wf-approve']!, { call_id: 'cc_7' });
  await emulator.actions.reject(actionIds['wf-reject']!, 'Not to this LP');
  await emulator.actions.expire(actionIds['wf-expire']!);

  for (const jobId of Object.keys(plan)) await until(() => here.queue.getJobState(jobId), (state) => state === 'completed', `${jobId} to finish`);
  const returned = Object.fromEntries(await Promise.all(Object.keys(plan).map(async (jobId) => [jobId, (await Job.fromId(here.queue, jobId))!.returnvalue])));
  expect(returned['wf-approve']).toEqual({ status: 'approved', result: { call_id: 'cc_7' } });
  expect(returned['wf-reject']).toEqual({ status: 'rejected', reason: 'Not to this LP' });
  expect(returned['wf-expire']).toMatchObject({ status: 'expired', expiredAt: emulator.actions.get(actionIds['wf-expire']!)!.expired_at });
  // Exactly once: one effect per workflow, and the resume handler ran once per action.
  const effects = (await here.connection.lrange(`${QUEUE}:effects`, 0, -1)).map((line) => JSON.parse(line) as { job: string; actionId: string; status: string });
  expect(effects.map(({ job, actionId, status }) => `${job} ${actionId} ${status}`).sort()).toEqual(
    [`wf-approve ${actionIds['wf-approve']} approved`, `wf-expire ${actionIds['wf-expire']} expired`, `wf-reject ${actionIds['wf-reject']} rejected`],
  );
  // The handler records itself done one round trip after the promote: wait for that, not for the job.
  for (const actionId of Object.values(actionIds)) await until(() => here.ledger.handled(actionId, 'resume-workflow'), (runs) => runs.done, `${actionId}'s resume recorded done`);

  await Promise.all(roles.map(kill));
  here.connection.disconnect();
  await here.ledger.close().catch(() => undefined);
  await here.queue.close().catch(() => undefined);
}, 120_000);

test.skipIf(!hasRedis || !built)('the example run whole, in one process (its own emulator approving): resumed by the decision, and it ends by itself', async () => {
  const child = spawn(process.execPath, [EXAMPLE], { env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${redis.port}` }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += String(chunk)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(stdout).toMatch(/^✓ job \S+ proposed (act_\d+) and waits for the GP in BullMQ's delayed set\n✓ resumed by the decision: \{"status":"approved","result":\{"message_id":"msg_42"\}\}\n$/);
  expect(code).toBe(0);
}, 60_000);
