// The waiting process of bench/actions-ledger.mjs: waitForDecision for each id of IDS over the Redis
// ledger store (polling set to a minute: only the channel tells it in time); prints `waiting` once
// subscribed, then `{ id, at }` per decision, `at` in epoch ms with sub-millisecond precision.
import { Redis } from 'ioredis';
import { createActionLedger, createRedisLedgerStore } from 'svc-sdk/actions';

const { REDIS_PORT, PREFIX, IDS = '' } = process.env;
const client = new Redis({ host: '127.0.0.1', port: Number(REDIS_PORT) });
const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix: PREFIX }), pollMs: 60_000 });
const ids = IDS.split(',').filter(Boolean);
const waits = ids.map((id) => ledger.waitForDecision(id, { timeoutMs: 120_000 }).then(() => process.stdout.write(`${JSON.stringify({ id, at: performance.timeOrigin + performance.now() })}\n`)));
while (Number((await client.call('PUBSUB', 'NUMSUB', `${PREFIX}decided`))[1]) < 1) await new Promise((resolve) => setTimeout(resolve, 10));
process.stdout.write('waiting\n');
await Promise.all(waits);
await ledger.close();
client.disconnect();
