// The receivers of the no-loss scenario: a node:cluster of two processes sharing one port (a fleet
// of receivers, as a deployment runs them), each toNodeListener over createWebhookHandler({
// secret, inbox }) with the built package. A receiver given DIE_AFTER=n SIGKILLs itself right after
// the n-th delivery is durably in the inbox, before its answer is written: the window where a lost
// answer makes the service send the delivery again. The primary replaces every receiver that dies,
// handing out kills until KILLS are spent, and prints `listening` once, then `killed` per kill.
import cluster from 'node:cluster';
import { createServer } from 'node:http';

const { REDIS_PORT, QUEUE, SECRET, PORT, KILLS = '0', SPREAD = '50', DIE_AFTER = '0' } = process.env;

if (cluster.isPrimary) {
  let kills = Number(KILLS);
  let listening = 0;
  const fork = () => cluster.fork({ DIE_AFTER: String(kills-- > 0 ? 1 + Math.floor(Math.random() * Number(SPREAD)) : 0) });
  cluster.on('listening', () => {
    if (++listening === 2) process.stdout.write('listening\n');
  });
  cluster.on('exit', (_worker, _code, signal) => {
    if (signal === 'SIGKILL') process.stdout.write('killed\n');
    fork();
  });
  fork();
  fork();
} else {
  const { bullmqInbox } = await import('svc-sdk/inbox');
  const { createWebhookHandler, toNodeListener } = await import('svc-sdk/webhooks');
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
  // Why a delivery was answered 500, each reason once per process (stderr reaches the test's output): a
  // failed run then says what the inbox met, not only how many answers were 500.
  const reasons = new Set();
  const onError = (error) => {
    const reason = `${error?.name}: ${error?.message}`;
    if (reasons.has(reason)) return;
    reasons.add(reason);
    process.stderr.write(`${new Date().toISOString()} receiver ${process.pid} answered 500: ${reason}\n`);
  };
  const server = createServer(toNodeListener(createWebhookHandler({ secret: SECRET, inbox, onError })));
  server.keepAliveTimeout = 1000;
  server.listen(Number(PORT), '127.0.0.1');
}
