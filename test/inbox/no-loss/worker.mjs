// A worker of the no-loss scenario, in a process of its own: inbox.process(on) whose effect is one
// RPUSH of "<pid> <time> <run id>" to ledger:<delivery_id> in Redis (the effect ledger: which process ran it,
// and when, so a repeat can be traced to its cause; the run id tells a run from the same RPUSH resent by
// ioredis after a Redis restart cut the connection before its answer), after a short random wait so that a SIGKILL can
// land while on() runs. A delivery with data.poison throws until poison-cured is set.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { bullmqInbox } from 'svc-sdk/inbox';

const { REDIS_PORT, QUEUE } = process.env;
const port = Number(REDIS_PORT);
const ledger = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
ledger.on('error', () => {});
const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null }, queue: QUEUE, warn: () => {} });
const worker = inbox.process(
  async (event) => {
    if (event.data.poison && !(await ledger.get('poison-cured'))) throw new Error(`poison ${event.delivery_id}`);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
    await ledger.rpush(`ledger:${event.delivery_id}`, `${process.pid} ${Date.now()} ${randomUUID()}`);
  },
  { concurrency: 4, attempts: 3, backoff: { type: 'fixed', delay: 50 }, workerOptions: { lockDuration: 2000, stalledInterval: 1000 } },
);
await worker.ready();
process.stdout.write('working\n');
process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
