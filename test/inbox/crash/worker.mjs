// A worker in a process of its own, for test/inbox/crash.test.ts: a delivery whose data.crash is set
// kills this process (SIGKILL, as an out-of-memory kill or a native crash would) while on() runs;
// the others print "ran <delivery_id>". Dead letters print "dead <delivery_id> <lastError>".
import { bullmqInbox } from 'svc-sdk/inbox';

const { REDIS_PORT, QUEUE, MAX_DEATHS } = process.env;
const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: Number(REDIS_PORT), maxRetriesPerRequest: null }, queue: QUEUE, warn: () => {} });
const worker = inbox.process(
  (event) => {
    if (event.data.crash) process.kill(process.pid, 'SIGKILL');
    process.stdout.write(`ran ${event.delivery_id}\n`);
  },
  {
    maxWorkerDeaths: Number(MAX_DEATHS),
    onDeadLetter: (letter) => void process.stdout.write(`dead ${letter.deliveryId} ${letter.lastError}\n`),
    // A dead worker's lock expires in half a second, and the stalled check looks every 300 ms.
    workerOptions: { lockDuration: 500, stalledInterval: 300 },
  },
);
await worker.ready();
process.stdout.write('working\n');
process.once('SIGTERM', () => void worker.close().then(() => inbox.close()));
