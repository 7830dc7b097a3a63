// The Cloudflare Queues inbox against fakes of the Workers bindings: cloudflareQueueInbox over a Queue
// binding that fails as workerd's does (a message over 128 KB refused with a bare `Unknown Internal
// Error`, which the inbox turns into an error naming the limit and the fix; any other failure passed
// through untouched), and processQueueBatch over hand-made batches (dedupe by delivery_id, ack,
// retry with its delay, claim released when `on` throws). The real bindings are exercised by the
// runtime matrix (test/runtimes/lib/workerd-queue.mjs, in workerd under Miniflare).
import { describe, expect, test, vi } from 'vitest';
import { cloudflareQueueInbox, processQueueBatch, type CloudflareQueue, type CloudflareQueueMessage } from '../../src/inbox/edge.js';
import { createMemoryDedupeStore, type DedupeStore, type InboxEntry, type WebhookEvent } from '../../src/webhooks/index.js';

/** A binding that refuses a message whose JSON is over `limit` bytes, as workerd does, and keeps the others. */
function queueWithLimit(limit = 128_000): CloudflareQueue & { sent: InboxEntry[]; options: unknown[]; down?: Error } {
  const queue: CloudflareQueue & { sent: InboxEntry[]; options: unknown[]; down?: Error } = {
    sent: [],
    options: [],
    async send(body, options) {
      if (queue.down) throw queue.down;
      if (new TextEncoder().encode(JSON.stringify(body)).byteLength > limit) throw new Error('Unknown Internal Error (15000)');
      queue.sent.push(body);
      queue.options.push(options);
    },
  };
  return queue;
}

const entry = (deliveryId: string, body: string): InboxEntry => ({ deliveryId, kind: 'document.uploaded', body, receivedAt: 1_700_000_000_000 });

describe('cloudflareQueueInbox(queue)', () => {
  test.each([undefined, null, {}, { send: 'not a function' }, { put: () => {} }])('throws a [svc-sdk] TypeError naming the Queue binding and wrangler.toml for %j', (queue) => {
    expect(() => cloudflareQueueInbox(queue as unknown as CloudflareQueue)).toThrow(
      new TypeError('[svc-sdk] cloudflareQueueInbox: pass a Queue binding (env.<QUEUE>, with a [[queues.producers]] entry in wrangler.toml)'),
    );
  });
});

describe('cloudflareQueueInbox(queue).put', () => {
  test('a delivery over a queue message limit rejects with the size, the limit and the fix, keeping the binding error as cause', async () => {
    const queue = queueWithLimit();
    const failure = await cloudflareQueueInbox(queue)
      .put(entry('dlv_big', 'x'.repeat(130_000)))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    const error = failure as Error;
    expect(error.message).toMatch(/^\[svc-sdk\] cloudflareQueueInbox: delivery dlv_big is 130\d{3} bytes as a queue message, over Cloudflare Queues' 128000 bytes, so it was not stored/);
    expect(error.message).toMatch(/R2 or KV/);
    expect((error.cause as Error).message).toBe('Unknown Internal Error (15000)');
    expect(queue.sent).toEqual([]);
  });

  test('a delivery within the limit is sent as it is; a failure of another kind passes through unchanged', async () => {
    const queue = queueWithLimit();
    const inbox = cloudflareQueueInbox(queue);
    const small = entry('dlv_small', '{"event":"document.uploaded"}');
    await inbox.put(small);
    expect(queue.sent).toEqual([small]);
    // As JSON: the consumer gets the entry as an object (a `v8` message would not cross to a pull consumer as JSON).
    expect(queue.options).toEqual([{ contentType: 'json' }]);

    const down = new Error('Queue send failed: the queue is paused');
    queue.down = down;
    await expect(inbox.put(entry('dlv_later', 'y'))).rejects.toBe(down);
    // At the limit exactly, the message fits: its failure is of another kind, passed on as it is.
    const overhead = JSON.stringify(entry('dlv_edge', '')).length;
    await expect(inbox.put(entry('dlv_edge', 'z'.repeat(128_000 - overhead)))).rejects.toBe(down);
  });
});

/** A queue message as a consumer gets it, recording what the consumer did with it. */
interface FakeMessage extends CloudflareQueueMessage {
  acked: number;
  retried: Array<{ delaySeconds?: number } | undefined>;
}

function message(body: unknown, attempts = 1): FakeMessage {
  const fake: FakeMessage = {
    body,
    attempts,
    acked: 0,
    retried: [],
    ack: () => void (fake.acked += 1),
    retry: (options) => void fake.retried.push(options),
  };
  return fake;
}

/** The message cloudflareQueueInbox sends for a delivery `id` whose `data` is given. */
function queued(id: string, data: Record<string, unknown> = {}, attempts = 1): FakeMessage {
  const body = JSON.stringify({ event: 'document.uploaded', version: '1.0', delivery_id: id, timestamp: new Date().toISOString(), data });
  return message({ deliveryId: id, kind: 'document.uploaded', body, receivedAt: Date.now() }, attempts);
}

describe('processQueueBatch(batch, on, options)', () => {
  test('runs on once per delivery_id, with the typed event, and acknowledges every message, repeats included', async () => {
    const ran: WebhookEvent[] = [];
    const batch = [queued('q-a', { documentId: 'doc_a' }), queued('q-a', { documentId: 'doc_a' }), queued('q-b')];
    await processQueueBatch({ messages: batch }, (event) => void ran.push(event), { dedupe: createMemoryDedupeStore() });
    expect(ran.map((event) => [event.delivery_id, event.event, event.data])).toEqual([
      ['q-a', 'document.uploaded', { documentId: 'doc_a' }],
      ['q-b', 'document.uploaded', {}],
    ]);
    expect(batch.map((m) => [m.acked, m.retried.length])).toEqual([[1, 0], [1, 0], [1, 0]]);
  });

  test('a message whose on throws is retried after retryDelaySeconds (30 s by default), not acknowledged, and runs again on its next delivery', async () => {
    const dedupe = createMemoryDedupeStore();
    const on = vi.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(undefined);
    const first = queued('q-fail');
    await processQueueBatch({ messages: [first] }, on, { dedupe });
    expect([first.acked, first.retried]).toEqual([0, [{ delaySeconds: 30 }]]);

    const second = queued('q-fail', {}, 2);
    await processQueueBatch({ messages: [second] }, on, { dedupe, retryDelaySeconds: 0 });
    expect(on).toHaveBeenCalledTimes(2); // its claim was released when it threw
    expect([second.acked, second.retried]).toEqual([1, []]);

    const third = queued('q-fail2');
    await processQueueBatch({ messages: [third] }, () => Promise.reject(new Error('down')), { dedupe, retryDelaySeconds: 0 });
    expect(third.retried).toEqual([{ delaySeconds: 0 }]);
  });

  test('a delivery another consumer is running (claim "processing") is retried later, without running on', async () => {
    const busy: DedupeStore = { claim: () => 'processing', complete: vi.fn(), release: vi.fn() };
    const on = vi.fn();
    const busyMessage = queued('q-busy');
    await processQueueBatch({ messages: [busyMessage] }, on, { dedupe: busy, retryDelaySeconds: 5 });
    expect(on).not.toHaveBeenCalled();
    expect([busyMessage.acked, busyMessage.retried]).toEqual([0, [{ delaySeconds: 5 }]]);
    expect(busy.release).not.toHaveBeenCalled();
  });

  test('a message that is not an entry of this inbox is retried (so it reaches the dead-letter queue) and told to onError, never run nor dropped silently', async () => {
    const on = vi.fn();
    const onError = vi.fn();
    const strangers = [
      message(null),
      message('text'),
      message({ deliveryId: 'q-x', body: 42 }),
      message({ deliveryId: 'q-y', body: '{"event":"document.uploaded"}' }), // not a delivery: no delivery_id, version, timestamp, data
      message({ body: JSON.parse(JSON.stringify(queued('q-z').body)).body }), // a delivery, but no deliveryId
    ];
    await processQueueBatch({ messages: strangers }, on, { dedupe: createMemoryDedupeStore(), onError, retryDelaySeconds: 7 });
    expect(on).not.toHaveBeenCalled();
    expect(strangers.map((m) => [m.acked, m.retried])).toEqual(strangers.map(() => [0, [{ delaySeconds: 7 }]]));
    expect(onError).toHaveBeenCalledTimes(5);
    expect(onError.mock.calls.map(([, context]) => [context.deliveryId, context.reason])).toEqual([
      [undefined, 'not_a_delivery'],
      [undefined, 'not_a_delivery'],
      ['q-x', 'not_a_delivery'],
      ['q-y', 'not_a_delivery'],
      [undefined, 'not_a_delivery'],
    ]);
    const messages = onError.mock.calls.map(([error]) => (error as Error).message);
    expect(messages[0]).toMatch(/^\[svc-sdk\] not a webhook delivery: the message has no body string .*retried, so that after max_retries it reaches the queue's dead_letter_queue$/);
    expect(messages[3]).toMatch(/^\[svc-sdk\] not a webhook delivery: "version" must be a non-empty string/);
    expect(messages[4]).toMatch(/the message has no deliveryId/);
  });

  test('a handler error is told to onError with the delivery (and retried); without onError one redacted line on console.error; a throwing onError changes nothing', async () => {
    const failure = new Error('CRM at https://bot:t0ps3cret@crm.test/api refused');
    const onError = vi.fn(() => {
      throw new Error('reporter down');
    });
    const failing = queued('q-err', {}, 3);
    await processQueueBatch({ messages: [failing] }, () => Promise.reject(failure), { dedupe: createMemoryDedupeStore(), onError });
    expect(onError).toHaveBeenCalledWith(failure, { deliveryId: 'q-err', kind: 'document.uploaded', attempts: 3, reason: 'handler_failed' });
    expect(failing.retried).toEqual([{ delaySeconds: 30 }]);
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await processQueueBatch({ messages: [queued('q-err2')] }, () => Promise.reject(failure), { dedupe: createMemoryDedupeStore() });
      await processQueueBatch({ messages: [message(null, 2)] }, () => {}, { dedupe: createMemoryDedupeStore() });
      expect(printed.mock.calls.map(([line]) => line)).toEqual([
        '[svc-sdk] processQueueBatch: delivery q-err2 (document.uploaded) failed on attempt 1, retried: CRM at https://[redacted]:[redacted]@crm.test/api refused',
        expect.stringMatching(/^\[svc-sdk\] processQueueBatch: a message that is not a delivery \(attempt 2\), retried: \[svc-sdk\] not a webhook delivery/),
      ]);
    } finally {
      printed.mockRestore();
    }
  });

  test('without a store, one per isolate remembers a processed delivery across batches', async () => {
    const on = vi.fn();
    const id = `q-isolate-${crypto.randomUUID()}`;
    await processQueueBatch({ messages: [queued(id)] }, on);
    const repeat = queued(id);
    await processQueueBatch({ messages: [repeat] }, on);
    expect(on).toHaveBeenCalledTimes(1);
    expect(repeat.acked).toBe(1);
  });
});
