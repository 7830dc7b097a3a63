import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import type { WebhookEvent } from '../../src/webhooks/index.js';
import { ENTRIES } from './entries.js';

// A delivery whose body arrives as a stream without Content-Length (chunked transfer, a proxy that
// re-frames it): the handler joins the chunks in order and verifies the exact bytes. Mutation
// testing found this path unguarded: every other test sends a body with a known length.

const SECRET = 'whsec_streamed_body_secret';

function envelope(deliveryId: string): string {
  return JSON.stringify({
    event: 'document.uploaded',
    version: '1.0',
    delivery_id: deliveryId,
    timestamp: new Date().toISOString(),
    data: { room_id: 1, document_id: 2, filename: 'memo – ünïcode.txt', uploader_id: 3 },
  });
}

/** A signed delivery whose body is a stream of `pieces` chunks and has no Content-Length. */
function streamedDelivery(body: string, pieces: number): Request {
  const bytes = new TextEncoder().encode(body);
  const size = Math.ceil(bytes.byteLength / pieces);
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
  const signature = `sha256=${createHmac('sha256', SECRET).update(bytes).digest('hex')}`;
  const request = new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    body: stream,
    headers: { 'content-type': 'application/json', 'X-Svc-Signature': signature },
    duplex: 'half',
  } as RequestInit);
  expect(request.headers.get('content-length')).toBeNull();
  return request;
}

describe.each(ENTRIES)('%s entry: a streamed body without Content-Length', (_name, sdk) => {
  test.each([1, 2, 7])('in %i chunk(s) is joined in order, verified and handed to on()', async (pieces) => {
    const seen: WebhookEvent[] = [];
    const handler = sdk.createWebhookHandler({ secret: SECRET, on: (event) => void seen.push(event) });
    const response = await handler(streamedDelivery(envelope(`d-stream-${pieces}`), pieces));
    expect(response.status).toBe(200);
    expect(seen.map((event) => [event.delivery_id, (event.data as { filename: string }).filename])).toEqual([[`d-stream-${pieces}`, 'memo – ünïcode.txt']]);
  });

  test('a chunk changed on the way fails verification (401), in any position', async () => {
    const body = envelope('d-stream-tampered');
    const good = streamedDelivery(body, 3);
    const tampered = new Request(good.url, {
      method: 'POST',
      headers: good.headers,
      body: streamedDelivery(body.replace('memo', 'mema'), 3).body,
      duplex: 'half',
    } as RequestInit);
    const response = await sdk.createWebhookHandler({ secret: SECRET, on: () => undefined })(tampered);
    expect(response.status).toBe(401);
  });
});
