// The inbox on Cloudflare Queues, for a receiver on Workers: the receiver verifies and sends the
// delivery to a queue, answering 2xx once the queue has it; the queue's consumer runs `on`.
// Cloudflare Queues deliver at least once and do not deduplicate, and a delivery the service
// retried (its 2xx lost) is sent twice: the consumer deduplicates by delivery_id.
import { createMemoryDedupeStore } from '../webhooks/dedupe-memory.js';
import type { DedupeStore } from '../webhooks/dedupe.js';
import { redactUrlsInText } from '../shared/redact.js';
import { readWebhookEvent } from '../webhooks/events.js';
import type { InboxEntry, InboxHandler, WebhookInbox } from './types.js';

/** The part of a Workers `Queue` binding the inbox uses (`env.WEBHOOKS`). */
export interface CloudflareQueue {
  /**
   * Sends one message to the queue (resolves once the queue has it).
   *
   * @param body The verified delivery to queue.
   * @param options `contentType: 'json'`, as the inbox sends it.
   */
  send(body: InboxEntry, options?: { contentType?: 'json' }): Promise<unknown>;
}

/** The part of a queue consumer's message the inbox uses. */
export interface CloudflareQueueMessage {
  readonly body: unknown;
  /** 1 for the first delivery of this message to a consumer. */
  readonly attempts: number;
  /** Marks the message processed: the queue does not deliver it again. */
  ack(): void;
  /**
   * Asks the queue to deliver the message again, after `delaySeconds`.
   *
   * @param options `delaySeconds` before the message is delivered again.
   */
  retry(options?: { delaySeconds?: number }): void;
}

/** The batch a queue consumer's `queue(batch, env, ctx)` gets. */
export interface CloudflareMessageBatch {
  readonly messages: readonly CloudflareQueueMessage[];
}

/** Options of `processQueueBatch`. */
export interface ProcessQueueBatchOptions {
  /**
   * Where processed delivery ids are kept. Default: one memory store per isolate, which catches a
   * repeat within that isolate only; pass a shared store (your own `DedupeStore` over KV, D1 or a
   * Durable Object) to deduplicate across isolates.
   */
  dedupe?: DedupeStore | undefined;
  /** Seconds before a message whose `on` threw (or that is not a delivery) is delivered again. Default 30. */
  retryDelaySeconds?: number | undefined;
  /**
   * Hears what went wrong with a message: the error `on` threw (the message is retried), or a
   * message that is not a delivery of this inbox (retried too, so that after the queue's
   * `max_retries` it reaches its dead-letter queue, where someone can see it, instead of vanishing).
   * Default: one line on `console.error`, credentials redacted. What it throws is ignored.
   *
   * @param error What went wrong: the error `on` threw, or why the message is not a delivery.
   * @param context Which message it is about.
   */
  onError?: ((error: unknown, context: QueueMessageContext) => void) | undefined;
}

/** Which message `onError` is about. */
export interface QueueMessageContext {
  /** The delivery's id, when the message holds one. */
  readonly deliveryId: string | undefined;
  /** The event kind, when the message holds a delivery. */
  readonly kind: string | undefined;
  /** 1 for the first delivery of this message to a consumer. */
  readonly attempts: number;
  /** `on` threw, or the message is not a delivery of this inbox. */
  readonly reason: 'handler_failed' | 'not_a_delivery';
}

/** The default `onError`: one redacted line, for a worker's log. */
function logQueueError(error: unknown, context: QueueMessageContext): void {
  const what = context.reason === 'handler_failed' ? `delivery ${context.deliveryId} (${context.kind}) failed on attempt ${context.attempts}` : `a message that is not a delivery (attempt ${context.attempts})`;
  console.error(redactUrlsInText(`[svc-sdk] processQueueBatch: ${what}, retried: ${error instanceof Error ? error.message : String(error)}`));
}

/**
 * An inbox that sends each verified delivery to a Cloudflare Queue (`createWebhookHandler({ secret,
 * inbox: cloudflareQueueInbox(env.WEBHOOKS) })`): the receiver answers 2xx once the queue has it.
 *
 * @param queue The Queue binding the receiver sends to, e.g. `env.WEBHOOKS`.
 */
export function cloudflareQueueInbox(queue: CloudflareQueue): WebhookInbox {
  if (typeof queue?.send !== 'function') throw new TypeError('[svc-sdk] cloudflareQueueInbox: pass a Queue binding (env.<QUEUE>, with a [[queues.producers]] entry in wrangler.toml)');
  return {
    async put(entry) {
      const message = { deliveryId: entry.deliveryId, kind: entry.kind, body: entry.body, receivedAt: entry.receivedAt };
      try {
        await queue.send(message, { contentType: 'json' });
      } catch (error) {
        throw tooLargeForQueue(message, error) ?? error;
      }
    },
  };
}

/** The most a Cloudflare Queues message may hold, in bytes (128 KB; workerd and Miniflare count 128 000). */
const QUEUE_MESSAGE_LIMIT_BYTES = 128_000;

/**
 * The clear error for a message the queue refused because of its size, or `undefined` when it is
 * within the limit (another failure, passed on as it is). Measured only once `send` failed: the
 * binding's own error says no more than `Unknown Internal Error`, and a delivery within the receiver's
 * `maxBodyBytes` (1 MiB by default) can be over a queue message's limit.
 */
function tooLargeForQueue(message: InboxEntry, cause: unknown): Error | undefined {
  const bytes = new TextEncoder().encode(JSON.stringify(message)).byteLength;
  if (bytes <= QUEUE_MESSAGE_LIMIT_BYTES) return undefined;
  return new Error(
    `[svc-sdk] cloudflareQueueInbox: delivery ${message.deliveryId} is ${bytes} bytes as a queue message, over Cloudflare Queues' ${QUEUE_MESSAGE_LIMIT_BYTES} bytes, so it was not stored (answered 500; the service retries it, and each retry fails the same way): keep large bodies in R2 or KV and queue their key, with a WebhookInbox of your own`,
    { cause },
  );
}

/** The default store of `processQueueBatch`: one per isolate, made on first use. */
let isolateStore: DedupeStore | undefined;

/**
 * Runs `on(event)` for each message of a queue consumer's batch, once per `delivery_id`: a message
 * already processed is acknowledged without running `on`; one whose `on` throws is retried (after
 * `retryDelaySeconds`; the queue's `max_retries` and dead-letter queue decide when it stops) and
 * told to `onError`; one that is not a delivery is retried and told as well, never dropped silently.
 *
 * @param batch The batch the queue consumer received.
 * @param on Processes one event; a throw retries its message later.
 * @param options The `dedupe` store, and `retryDelaySeconds` before a failed message comes again.
 *
 * @example
 * ```ts
 * import { processQueueBatch, type CloudflareMessageBatch } from 'svc-sdk/inbox';
 *
 * export default {
 *   async queue(batch: CloudflareMessageBatch) {
 *     await processQueueBatch(batch, async (event) => {
 *       if (event.event === 'document.uploaded') console.log(event.data.filename);
 *     });
 *   },
 * };
 * ```
 */
export async function processQueueBatch(batch: CloudflareMessageBatch, on: InboxHandler, options: ProcessQueueBatchOptions = {}): Promise<void> {
  const store = options.dedupe ?? (isolateStore ??= createMemoryDedupeStore());
  const delaySeconds = options.retryDelaySeconds ?? 30;
  const onError = options.onError ?? logQueueError;
  const report = (error: unknown, context: QueueMessageContext) => {
    try {
      onError(error, context);
    } catch {
      // A reporter that throws must not change a message's fate.
    }
  };
  for (const message of batch.messages) {
    const entry = message.body as Partial<InboxEntry> | null;
    const event = typeof entry?.body === 'string' ? readWebhookEvent(entry.body) : '[svc-sdk] not a webhook delivery: the message has no body string';
    // Not an entry of this inbox: retried, so that it ends in the dead-letter queue (where a person sees it), and told.
    if (typeof event === 'string' || typeof entry?.deliveryId !== 'string') {
      const problem = typeof event === 'string' ? event : '[svc-sdk] not a webhook delivery: the message has no deliveryId';
      report(new Error(`${problem} (a message sent by something other than cloudflareQueueInbox?): retried, so that after max_retries it reaches the queue's dead_letter_queue`), {
        deliveryId: typeof entry?.deliveryId === 'string' ? entry.deliveryId : undefined,
        kind: undefined,
        attempts: message.attempts,
        reason: 'not_a_delivery',
      });
      message.retry({ delaySeconds });
      continue;
    }
    const claim = await store.claim(entry.deliveryId);
    if (claim === 'done') {
      message.ack();
      continue;
    }
    if (claim === 'processing') {
      message.retry({ delaySeconds });
      continue;
    }
    try {
      await on(event);
    } catch (error) {
      report(error, { deliveryId: entry.deliveryId, kind: event.event, attempts: message.attempts, reason: 'handler_failed' });
      await store.release(entry.deliveryId);
      message.retry({ delaySeconds });
      continue;
    }
    await store.complete(entry.deliveryId);
    message.ack();
  }
}
