// A Cloudflare Worker that is both ends of svc-sdk/inbox on Cloudflare Queues, bundled from the
// packed package the way wrangler does and run by workerd without nodejs_compat (lib/workerd-queue.mjs):
// `fetch` is the receiver (verify, send to the WEBHOOKS queue, answer 2xx once sent) and `queue` the
// consumer (processQueueBatch). The KV namespace RUNS is the ledger the test reads from Node:
//   seen:<delivery_id>  messages the queue handed to the consumer for it (before any dedupe)
//   runs:<delivery_id>  runs of `on` for it
//   done:<delivery_id>  runs of `on` that returned
//   attempts:<delivery_id>  the queue's `attempts` of the message whose `on` returned
//   error:<delivery_id>  what the receiver's onError heard (a delivery it could not store)
//   dead:<delivery_id>  messages that reached the dead-letter queue
// A delivery whose `data.throwOnce` is true makes `on` throw on its first run; `data.alwaysThrow`, on every run.
import { cloudflareQueueInbox, processQueueBatch } from 'svc-sdk/inbox';
import { createWebhookHandler } from 'svc-sdk/webhooks';

/** Adds 1 to a counter of the ledger (one consumer runs at a time here, so read-then-write is safe). */
async function bump(kv, key) {
  const count = Number((await kv.get(key)) ?? 0) + 1;
  await kv.put(key, String(count));
  return count;
}

/** The receiver, made once per isolate: its env is the same for every request. */
let handler;

export default {
  async fetch(request, env) {
    // Without nodejs_compat there is no `process`: proves the Node shims are really off.
    if (typeof globalThis.process !== 'undefined') return new Response('process exists: nodejs_compat is on', { status: 500 });
    handler ??= createWebhookHandler({
      secret: env.SECRET,
      inbox: cloudflareQueueInbox(env.WEBHOOKS),
      // Awaited before the 500 goes out: the test reads what the integrator would have been told.
      onError: (error, event) => env.RUNS.put(`error:${event.delivery_id}`, String(error?.message ?? error)),
    });
    return handler(request);
  },

  async queue(batch, env) {
    // The dead-letter queue (DEAD_LETTER_QUEUE): where the queue moves a message whose retries are
    // spent; an integrator keeps or replays these, the test records them.
    if (batch.queue === env.DEAD_LETTER_QUEUE) {
      for (const message of batch.messages) {
        await bump(env.RUNS, `dead:${message.body?.deliveryId}`);
        message.ack();
      }
      return;
    }
    // What the queue delivered, counted before processQueueBatch deduplicates: shows that a retried
    // delivery really reached the consumer twice, and that a refused one never reached it.
    for (const message of batch.messages) {
      const id = message.body?.deliveryId;
      if (typeof id === 'string') await bump(env.RUNS, `seen:${id}`);
    }
    const attempts = new Map(batch.messages.map((message) => [message.body?.deliveryId, message.attempts]));
    await processQueueBatch(
      batch,
      async (event) => {
        const run = await bump(env.RUNS, `runs:${event.delivery_id}`);
        if (event.data.throwOnce === true && run === 1) throw new Error(`on() fails the first run of ${event.delivery_id}, as asked`);
        if (event.data.alwaysThrow === true) throw new Error(`on() fails every run of ${event.delivery_id}, as asked`);
        await bump(env.RUNS, `done:${event.delivery_id}`);
        await env.RUNS.put(`attempts:${event.delivery_id}`, String(attempts.get(event.delivery_id)));
      },
      // The queue's own retryDelay is 0 in the test; processQueueBatch's delay (30 s by default) would override it.
      { retryDelaySeconds: 0 },
    );
  },
};
