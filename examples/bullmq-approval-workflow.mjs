// A BullMQ workflow that waits for a GP's decision, durably: the job proposes an action (its agent's
// write tool; here the emulator's control route plays the service), saves the action id in its own
// data, and moves itself to BullMQ's delayed set; the ledger's onDecision handler promotes it the
// moment the decision is recorded, in whichever process, and the job acts on approved, rejected or
// expired. Nothing waits in memory: every process (and Redis, with an append-only file) can be
// killed while the workflow waits, and it resumes once they are back and the GP decides.
//
//   redis-server --appendonly yes --daemonize yes
//   npm run build && node examples/bullmq-approval-workflow.mjs          # the whole loop in one process
//   node examples/bullmq-approval-workflow.mjs receiver | worker         # one role per process, as deployed
// Env: REDIS_URL (default redis://127.0.0.1:6379); the receiver: PORT, SVC_WEBHOOK_SECRET; the worker:
// SVC_BASE_URL and SVC_API_KEY (the emulator it proposes through), WORKFLOW_RECHECK_MS (default 1 h); both:
// LEDGER_PREFIX (the ledger's keys, default svc-sdk:actions:).
import { createServer } from 'node:http';
import { DelayedError, Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createActionLedger, createRedisLedgerStore } from 'svc-sdk/actions';
import { createWebhookHandler, toNodeListener } from 'svc-sdk/webhooks';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const QUEUE = 'approval-workflows';
/** A job's run id is its agent run's: `wf:<job id>`, so a decision (which names its run) finds its job. */
const RUN_PREFIX = 'wf:';
/** A fallback only: a job that missed its resume (a decision that came before its proposal names no run) looks again after this. */
const recheckMs = Number(process.env.WORKFLOW_RECHECK_MS ?? 3_600_000);

/** The ledger on a Redis connection of its own (BullMQ opens its own), and how to close both (the store leaves a client it was given open). */
function ledgerOn(url) {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  const ledger = createActionLedger({ store: createRedisLedgerStore(redis, { prefix: process.env.LEDGER_PREFIX }) });
  return { ledger, close: async () => (await ledger.close(), await redis.quit()) };
}

/**
 * The agent's write tool: in production your agent run calls it in the service, which fires
 * action.approval_required; here the emulator's control route (POST /api/v1/_emulator/actions) plays it.
 */
async function propose(kind, runId, proposal) {
  const response = await fetch(`${process.env.SVC_BASE_URL}/api/v1/_emulator/actions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.SVC_API_KEY}` },
    body: JSON.stringify({ kind, run_id: runId, proposal }),
  });
  if (!response.ok) throw new Error(`proposing ${kind} failed: ${response.status} ${await response.text()}`);
  return (await response.json()).data.action;
}

/** The workflow: propose, wait for the decision without holding anything in memory, act on it. */
function workflow(ledger, effects) {
  return async (job, token) => {
    const runId = `${RUN_PREFIX}${job.id}`;
    // Step 1, once: a retry after a crash finds the action in the job's data or, if the crash came
    // before it was saved, in the ledger's record of the run.
    let { actionId } = job.data;
    if (actionId === undefined) {
      actionId = (await ledger.run(runId)).actions[0]?.actionId ?? (await propose(job.data.kind, runId, job.data.proposal)).action_id;
      await job.updateData({ ...job.data, actionId });
    }
    // Step 2: decided yet? If not, sleep in Redis (BullMQ's delayed set) until the decision promotes the job.
    const action = await ledger.get(actionId);
    if (action?.decision === undefined) {
      await job.moveToDelayed(Date.now() + recheckMs, token);
      throw new DelayedError();
    }
    // Step 3: act on the decision (here: one line in a Redis list per workflow that finished).
    const { decision } = action;
    const outcome =
      decision.status === 'approved' ? { status: 'approved', result: decision.result }
      : decision.status === 'rejected' ? { status: 'rejected', reason: decision.reason }
      : { status: 'expired', expiredAt: decision.expiredAt };
    await effects.rpush(`${QUEUE}:effects`, JSON.stringify({ job: job.id, actionId, ...outcome }));
    return outcome;
  };
}

/** The receiver: every verified delivery recorded into the ledger before the 2xx (a failure is a 500, and the service retries). */
async function startReceiver(port, secret) {
  const { ledger, close } = ledgerOn(redisUrl);
  const server = createServer(toNodeListener(createWebhookHandler({ secret, on: (event) => ledger.record(event) })));
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
  return { port: server.address().port, close: async () => (server.close(), server.closeAllConnections(), await close()) };
}

/** The worker: runs the workflow jobs, and resumes a waiting job once its action is decided. */
async function startWorker() {
  const { ledger, close } = ledgerOn(redisUrl);
  const effects = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const connection = { url: redisUrl };
  const queue = new Queue(QUEUE, { connection });
  const worker = new Worker(QUEUE, workflow(ledger, effects), { connection, concurrency: 8 });
  // Once per decided action across every process (a second time only after a crash): promote is
  // idempotent, and a job still in its step 2 (active) is tried again shortly, once it is delayed.
  const resumer = ledger.onDecision(
    async (action) => {
      if (!action.runId?.startsWith(RUN_PREFIX)) return;
      const job = await Job.fromId(queue, action.runId.slice(RUN_PREFIX.length));
      const state = await job?.getState();
      if (state === 'delayed') await job.promote();
      else if (state === 'active') throw new Error('still active: resume once it waits');
    },
    { name: 'resume-workflow', retryDelayMs: 100, onError: () => {} },
  );
  await worker.waitUntilReady();
  return { queue, close: async () => (await resumer.close(), await worker.close(), await queue.close(), await close(), await effects.quit()) };
}

const role = process.argv[2];
if (role === 'receiver') {
  const receiver = await startReceiver(Number(process.env.PORT ?? 0), process.env.SVC_WEBHOOK_SECRET);
  console.log(`receiver ready on ${receiver.port}`);
  process.once('SIGTERM', () => void receiver.close());
} else if (role === 'worker') {
  const worker = await startWorker();
  console.log('worker ready');
  process.once('SIGTERM', () => void worker.close());
} else {
  // The whole loop in one process: the emulator as the service, its GP approving a moment later.
  const { Client } = await import('svc-sdk');
  const { createEmulator } = await import('svc-sdk/testing');
  const emulator = createEmulator({ deliveryDelayMs: 0 });
  const { url } = await emulator.listen(0);
  // A fresh emulator numbers its actions from act_1 again: a ledger of its own, so no earlier run's act_1 answers for it.
  Object.assign(process.env, { SVC_BASE_URL: url, SVC_API_KEY: 'vdr_workflow_example', LEDGER_PREFIX: `svc-sdk:actions:example-${Date.now()}:` });
  let secret = '';
  const receiver = await startReceiver(0, () => secret);
  const client = new Client({ apiKey: 'vdr_workflow_example', baseUrl: url });
  const webhook = await client.webhooks.create({ url: `http://127.0.0.1:${receiver.port}/webhooks`, name: 'workflow', event_types: null });
  secret = webhook.secret;
  const worker = await startWorker();
  const job = await worker.queue.add('send-letter', { kind: 'send_email', proposal: { to: 'lp@example.com', subject: 'Q3 letter' } });
  while ((await job.getState()) !== 'delayed') await new Promise((resolve) => setTimeout(resolve, 50));
  const { actionId } = (await Job.fromId(worker.queue, job.id)).data;
  console.log(`✓ job ${job.id} proposed ${actionId} and waits for the GP in BullMQ's delayed set`);
  await emulator.actions.approve(actionId, { message_id: 'msg_42' });
  while ((await job.getState()) !== 'completed') await new Promise((resolve) => setTimeout(resolve, 50));
  console.log(`✓ resumed by the decision: ${JSON.stringify((await Job.fromId(worker.queue, job.id)).returnvalue)}`);
  await client.webhooks.delete(webhook.id);
  await worker.close();
  await receiver.close();
  await emulator.close();
}
