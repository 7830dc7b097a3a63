// svc-sdk/inbox on Cloudflare Queues, in workerd: bundles consumer/queue-worker.mjs from the packed
// package the way wrangler does (conditions workerd, worker, browser; nodejs_compat off) and runs it
// in Miniflare with the WEBHOOKS queue bound as producer and consumed by the same Worker, and the KV
// namespace RUNS as its ledger. From Node it sends signed deliveries as the service would: a forged
// one (401, never queued), a normal one, the same one again (the service's retry after a lost 2xx:
// answered 200, queued twice, `on` run once), and one whose `on` throws on its first run (retried by
// the queue, done once), one whose `on` always throws (run once per attempt, then in the dead-letter
// queue), and one over a queue message's 128 KB (answered 500, onError told why). Then it waits for
// the consumer and checks the ledger.
// Usage: workerd-queue.mjs <consumerDir>; prints `SCENARIO_RESULT {json}` or fails naming what differed.
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Miniflare } from 'miniflare';
import { bundleWorker } from './workerd-bundle.mjs';

const [consumerDir] = process.argv.slice(2);

const SECRET = 'whsec_runtime-matrix-queue';
const QUEUE = 'svc-webhooks';
const DEAD_LETTER_QUEUE = 'svc-webhooks-dead';
/** Retries of a message before the queue moves it to the dead-letter queue (runs of `on`: one more). */
const MAX_RETRIES = 2;
/** Seconds the queue waits to fill a batch: small, so the row stays quick. */
const BATCH_TIMEOUT_SECONDS = 0.2;
/** How long the consumer may take to settle every delivery. */
const SETTLE_TIMEOUT_MS = 20_000;

const script = await bundleWorker(consumerDir, 'queue-worker.mjs');

/** A delivery as the service sends it: the exact body and its `X-Svc-Signature` under `secret`. */
function delivery(id, data, secret = SECRET) {
  const body = JSON.stringify({ event: 'document.uploaded', version: '2024-01-01', delivery_id: id, timestamp: new Date().toISOString(), data });
  return { id, body, signature: `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
}

const miniflare = new Miniflare({
  modules: true,
  script,
  compatibilityDate: '2026-04-01',
  compatibilityFlags: [], // nodejs_compat off, as in a Worker that never asked for it
  bindings: { SECRET, DEAD_LETTER_QUEUE },
  kvNamespaces: ['RUNS'],
  queueProducers: { WEBHOOKS: { queueName: QUEUE } },
  // retryDelay 0: a message the consumer retries comes back in the next batch.
  queueConsumers: {
    [QUEUE]: { maxBatchSize: 10, maxBatchTimeout: BATCH_TIMEOUT_SECONDS, maxRetries: MAX_RETRIES, retryDelay: 0, deadLetterQueue: DEAD_LETTER_QUEUE },
    [DEAD_LETTER_QUEUE]: { maxBatchSize: 10, maxBatchTimeout: BATCH_TIMEOUT_SECONDS },
  },
});

try {
  const send = async ({ body, signature }) => {
    const response = await miniflare.dispatchFetch('http://worker.test/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-signature': signature },
      body,
    });
    return { status: response.status, text: await response.text() };
  };
  const forged = delivery('dlv_forged', { documentId: 'doc_forged' }, 'whsec_not-the-secret');
  const normal = delivery('dlv_normal', { documentId: 'doc_1' });
  const flaky = delivery('dlv_throw_once', { documentId: 'doc_2', throwOnce: true });
  const failing = delivery('dlv_always_throws', { documentId: 'doc_4', alwaysThrow: true });
  // Within the receiver's maxBodyBytes (1 MiB) but over a queue message's 128 KB: the binding refuses it.
  const oversized = delivery('dlv_oversized', { documentId: 'doc_3', note: 'x'.repeat(200_000) });
  const answers = {
    forged: await send(forged),
    normal: await send(normal),
    retry: await send(normal), // the very same bytes: the service's retry of a delivery whose 2xx it lost
    throwOnce: await send(flaky),
    alwaysThrows: await send(failing),
    oversized: await send(oversized),
  };

  const kv = await miniflare.getKVNamespace('RUNS');
  const ledger = async () => {
    const entries = {};
    for (const { id } of [forged, normal, flaky, failing, oversized]) {
      const counts = {};
      for (const key of ['seen', 'runs', 'done', 'attempts', 'dead']) counts[key] = Number((await kv.get(`${key}:${id}`)) ?? 0);
      entries[id] = counts;
    }
    return entries;
  };
  // Settled: both messages of the normal delivery reached the consumer, the two that can be are done,
  // and the one whose `on` always throws reached the dead-letter queue.
  const settled = (entries) =>
    entries[normal.id].seen >= 2 && entries[normal.id].done >= 1 && entries[flaky.id].done >= 1 && entries[failing.id].dead >= 1;
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let entries = await ledger();
  while (!settled(entries) && Date.now() < deadline) {
    await sleep(100);
    entries = await ledger();
  }
  // A few more batch windows: a run that should not happen (a second `on`, a forged delivery queued) has time to show.
  await sleep(BATCH_TIMEOUT_SECONDS * 5_000);
  entries = await ledger();

  const expected = {
    // The oversized one was not stored: answered 500, so the service retries it (never a 2xx for a delivery not stored).
    statuses: { forged: 401, normal: 200, retry: 200, throwOnce: 200, alwaysThrows: 200, oversized: 500 },
    [forged.id]: { seen: 0, runs: 0, done: 0, attempts: 0, dead: 0 },
    // Queued twice (Cloudflare Queues do not deduplicate), run once.
    [normal.id]: { seen: 2, runs: 1, done: 1, attempts: 1, dead: 0 },
    // Its first run threw: the queue delivered it again (attempts 2), and the second run was done.
    [flaky.id]: { seen: 2, runs: 2, done: 1, attempts: 2, dead: 0 },
    // Every run threw: run once per delivery of the message (the first and MAX_RETRIES retries), then
    // moved to the dead-letter queue once, not dropped.
    [failing.id]: { seen: MAX_RETRIES + 1, runs: MAX_RETRIES + 1, done: 0, attempts: 0, dead: 1 },
    [oversized.id]: { seen: 0, runs: 0, done: 0, attempts: 0, dead: 0 },
  };
  const observed = {
    statuses: Object.fromEntries(Object.entries(answers).map(([name, { status }]) => [name, status])),
    ...entries,
  };
  // What the integrator's onError heard about the oversized delivery: the limit and the fix, not the
  // binding's bare `Unknown Internal Error`.
  const error = (await kv.get(`error:${oversized.id}`)) ?? '(onError was not called)';
  const said = /^\[svc-sdk\] cloudflareQueueInbox: delivery dlv_oversized is \d+ bytes as a queue message, over Cloudflare Queues' 128000 bytes, so it was not stored.*R2 or KV/.test(error);
  if (!said) throw new Error(`onError was not told why the oversized delivery was not stored: ${error}`);
  if (JSON.stringify(observed) !== JSON.stringify(expected)) {
    const bodies = Object.entries(answers).map(([name, { status, text }]) => `${name}: ${status} ${text.slice(0, 200)}`);
    throw new Error(`the inbox on Cloudflare Queues did not keep its promise\nexpected ${JSON.stringify(expected)}\nobserved ${JSON.stringify(observed)}\nanswers:\n${bodies.join('\n')}`);
  }
  console.log(`SCENARIO_RESULT ${JSON.stringify(observed)}`);
} finally {
  await miniflare.dispose();
}
