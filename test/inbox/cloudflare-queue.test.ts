// cloudflareQueueInbox against a Queue binding that fails as workerd's does: a message over 128 KB is
// refused with a bare `Unknown Internal Error`, which the inbox turns into an error naming the limit and
// the fix; any other failure passes through untouched. The real binding is exercised by the runtime
// matrix (test/runtimes/lib/workerd-queue.mjs, under Miniflare).
import { describe, expect, test } from 'vitest';
import { cloudflareQueueInbox, type CloudflareQueue } from '../../src/inbox/edge.js';
import type { InboxEntry } from '../../src/webhooks/index.js';

/** A binding that refuses a message whose JSON is over `limit` bytes, as workerd does, and keeps the others. */
function queueWithLimit(limit = 128_000): CloudflareQueue & { sent: InboxEntry[]; down?: Error } {
  const queue: CloudflareQueue & { sent: InboxEntry[]; down?: Error } = {
    sent: [],
    async send(body) {
      if (queue.down) throw queue.down;
      if (new TextEncoder().encode(JSON.stringify(body)).byteLength > limit) throw new Error('Unknown Internal Error (15000)');
      queue.sent.push(body);
    },
  };
  return queue;
}

const entry = (deliveryId: string, body: string): InboxEntry => ({ deliveryId, kind: 'document.uploaded', body, receivedAt: 1_700_000_000_000 });

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

    const down = new Error('Queue send failed: the queue is paused');
    queue.down = down;
    await expect(inbox.put(entry('dlv_later', 'y'))).rejects.toBe(down);
    // At the limit exactly, the message fits: its failure is of another kind, passed on as it is.
    const overhead = JSON.stringify(entry('dlv_edge', '')).length;
    await expect(inbox.put(entry('dlv_edge', 'z'.repeat(128_000 - overhead)))).rejects.toBe(down);
  });
});
