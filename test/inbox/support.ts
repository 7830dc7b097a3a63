// What the inbox's tests share: a stored delivery as a receiver would put it, and a poll.
import type { InboxEntry } from '../../src/inbox/index.js';

let sequence = 0;

/** A stored delivery as a receiver would put it (the body is a delivery envelope). */
export function entry(deliveryId = `d-${++sequence}`, data: Record<string, unknown> = { room_id: 1, document_id: sequence, filename: 'memo.pdf', uploader_id: 3 }, kind = 'document.uploaded', receivedAt = Date.now()): InboxEntry {
  const body = JSON.stringify({ event: kind, version: '1.0', delivery_id: deliveryId, timestamp: new Date().toISOString(), data });
  return { deliveryId, kind, body, receivedAt };
}

/** Resolves once `check()` is true, polling every 20 ms, or rejects after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits `ms`. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
