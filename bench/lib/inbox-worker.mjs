// A worker process of bench/inbox.mjs. argv: <redis port> <queue> <deliveries to fill first>.
// Says {} once ready; on { start: n } runs a no-op `on` (concurrency 16) and says { processed: n }
// when the inbox has completed n deliveries.
import { bullmqInbox } from 'svc-sdk/inbox';

const [port, queue, fill] = process.argv.slice(2);
const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: Number(port), maxRetriesPerRequest: null }, queue, warn: () => {} });
const body = (id) => `{"event":"ping.test","version":"1.0","delivery_id":"${id}","timestamp":"${new Date().toISOString()}","data":{}}`;
const puts = [];
for (let n = 0; n < Number(fill); n++) puts.push(inbox.put({ deliveryId: `b${n}`, kind: 'ping.test', body: body(`b${n}`), receivedAt: Date.now() }));
await Promise.all(puts);
process.send({});
process.on('message', async ({ start }) => {
  inbox.process(() => {}, { concurrency: 16 });
  for (;;) {
    const { completed } = await inbox.stats();
    if (completed >= start) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  process.send({ processed: start });
});
