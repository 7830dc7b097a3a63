// The receiver of the no-loss scenario, in a process of its own: toNodeListener over
// createWebhookHandler({ secret, inbox }) with the built package. With DIE_AFTER=n it SIGKILLs
// itself right after the n-th delivery is durably in the inbox, before the answer is written:
// the window where a lost answer makes the service send the delivery again.
import { createServer } from 'node:http';
import { bullmqInbox } from 'svc-sdk/inbox';
import { createWebhookHandler, toNodeListener } from 'svc-sdk/webhooks';

const { REDIS_PORT, QUEUE, SECRET, PORT, DIE_AFTER = '0' } = process.env;
const stored = bullmqInbox({
  // Fail fast while Redis is down (answer 500, the service retries) instead of queueing commands.
  connection: { host: '127.0.0.1', port: Number(REDIS_PORT), maxRetriesPerRequest: 1, enableOfflineQueue: false },
  queue: QUEUE,
  warn: () => {},
});
let count = 0;
const dieAfter = Number(DIE_AFTER);
const inbox = {
  async put(entry) {
    await stored.put(entry);
    if (++count === dieAfter) process.kill(process.pid, 'SIGKILL');
  },
};
const server = createServer(toNodeListener(createWebhookHandler({ secret: SECRET, inbox, onError: () => {} })));
server.keepAliveTimeout = 1000;
server.listen(Number(PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
