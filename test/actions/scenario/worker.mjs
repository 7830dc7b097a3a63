// A worker of the actions scenario, in a process of its own (the built package): an inbox worker
// whose `on` records each delivery into the Redis action ledger, and an onDecision handler whose
// effect is one RPUSH of "<pid> <time> <run>" to effect:<action_id> after a short random wait (so a
// SIGKILL can land while it runs), and counts of what arrived out of order or again. Prints `working` once both run.
import { Redis } from 'ioredis';
import { createActionLedger, createRedisLedgerStore } from 'svc-sdk/actions';
import { bullmqInbox } from 'svc-sdk/inbox';

const { REDIS_PORT, QUEUE, PREFIX } = process.env;
const port = Number(REDIS_PORT);
const redis = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
redis.on('error', () => {});
const ledger = createActionLedger({ store: createRedisLedgerStore(redis, { prefix: PREFIX, warn: () => {} }) });
const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null }, queue: QUEUE, warn: () => {} });
const worker = inbox.process(
  async (event) => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
    const { outcome, action } = await ledger.record(event);
    // What arrived out of order or again, for the scenario's report: a decision before its proposal, a proposal after its decision, a delivery seen before.
    if (outcome === 'applied' && action && action.status !== 'pending' && action.proposedAt === undefined) await redis.incr('count:early-decision');
    if (outcome !== 'duplicate' && event.event === 'action.approval_required' && action?.status !== 'pending') await redis.incr('count:late-proposal');
    if (outcome === 'duplicate') await redis.incr('count:duplicate');
  },
  { concurrency: 8, attempts: 20, backoff: { type: 'fixed', delay: 50 }, workerOptions: { lockDuration: 2000, stalledInterval: 1000 } },
);
const handler = ledger.onDecision(
  async (action, { run }) => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
    await redis.rpush(`effect:${action.actionId}`, `${process.pid} ${Date.now()} ${run} ${action.status}`);
  },
  { leaseMs: 1500, pollMs: 200, onError: () => {} },
);
await worker.ready();
process.stdout.write('working\n');
process.once('SIGTERM', () => void Promise.all([worker.close(), handler.close()]).then(() => process.exit(0)));
