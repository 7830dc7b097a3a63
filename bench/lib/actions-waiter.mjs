// The waiting process of bench/actions-ledger.mjs: waitForDecision for each id of IDS over the Redis
// ledger store (polling set to a minute: only the channel tells it in time); prints `waiting` once
// subscribed, then the id of each decision as soon as its wait resolved. No time is printed: this
// process's clock is not the sender's (two processes' performance.now() start from different
// origins, and timeOrigin is only as good as the wall clock at each start), so the sender times
// the round trip on its own clock. A `ping <n>` line on stdin is answered `pong <n>` at once: the
// sender's measure of the report's way back (this pipe), which the round trip includes.
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { createActionLedger, createRedisLedgerStore } from 'svc-sdk/actions';

const { REDIS_PORT, PREFIX, IDS = '' } = process.env;
const client = new Redis({ host: '127.0.0.1', port: Number(REDIS_PORT) });
const ledger = createActionLedger({ store: createRedisLedgerStore(client, { prefix: PREFIX }), pollMs: 60_000 });
const ids = IDS.split(',').filter(Boolean);
const waits = ids.map((id) => ledger.waitForDecision(id, { timeoutMs: 120_000 }).then(() => process.stdout.write(`heard ${id}\n`)));
const input = createInterface({ input: process.stdin });
input.on('line', (line) => line.startsWith('ping ') && process.stdout.write(`pong ${line.slice(5)}\n`));
while (Number((await client.call('PUBSUB', 'NUMSUB', `${PREFIX}decided`))[1]) < 1) await new Promise((resolve) => setTimeout(resolve, 10));
process.stdout.write('waiting\n');
await Promise.all(waits);
input.close();
await ledger.close();
client.disconnect();
