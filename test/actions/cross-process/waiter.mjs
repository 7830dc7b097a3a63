// A process that waits: waitForDecision for each action id of IDS (comma-separated) over the Redis
// ledger store with the built package, printing `waiting` once every wait is set up, then one JSON
// line per decision heard ({ id, decision, at }), and `done` when all are in. POLL_MS sets the
// ledger's polling (large: only the notifications can tell it in time).
import { Redis } from 'ioredis';
import { createActionLedger, createRedisLedgerStore } from 'svc-sdk/actions';

const { REDIS_PORT, PREFIX, IDS = '', POLL_MS = '1000', TIMEOUT_MS = '60000' } = process.env;
const client = new Redis({ host: '127.0.0.1', port: Number(REDIS_PORT), maxRetriesPerRequest: null });
client.on('error', () => {});
const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix: PREFIX, acceptNoPersistence: true }), pollMs: Number(POLL_MS) });
const ids = IDS.split(',').filter(Boolean);
const waits = ids.map((id) =>
  ledger.waitForDecision(id, { timeoutMs: Number(TIMEOUT_MS) }).then((decision) => {
    process.stdout.write(`${JSON.stringify({ id, decision, at: Date.now() })}\n`);
  }),
);
// The subscription is opened by the first wait, on a connection of its own: say `waiting` once Redis counts it.
while (ids.length && Number((await client.call('PUBSUB', 'NUMSUB', `${PREFIX}decided`))[1]) < 1) await new Promise((resolve) => setTimeout(resolve, 10));
process.stdout.write('waiting\n');
await Promise.all(waits);
process.stdout.write('done\n');
await ledger.close();
client.disconnect();
