// The receiver (receiver.ts) is loaded when a handler is made, not with the entry: in a browser or a
// Worker bundle it is a chunk of its own, and loading it can fail (a deployment that no longer serves
// the chunk). Then each delivery is answered 500 handler_failed (the service retries), over fetch and
// over a real socket, and the process goes on; a delivery that comes before the chunk has loaded
// waits for it, and is answered as any other.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { deliver, envelope, SECRET, serve, sign } from './wire.js';

const CHUNK_FAILED = 'Failed to fetch dynamically imported module: https://app.example/assets/receiver-4f2a.js';

afterEach(() => {
  vi.doUnmock('../../src/webhooks/receiver.js');
  vi.resetModules();
});

/** A fresh `svc-sdk/webhooks` whose receiver chunk fails to load as a browser's loader fails. */
async function webhooksWithoutReceiver() {
  vi.resetModules();
  vi.doMock('../../src/webhooks/receiver.js', () => {
    throw new TypeError(CHUNK_FAILED);
  });
  return import('../../src/webhooks/index.js');
}

/** A signed delivery as a `Request`. */
function signed(body = envelope()): Request {
  return new Request('http://localhost/webhooks', { method: 'POST', body, headers: { 'x-svc-signature': sign(body) } });
}

describe('a receiver chunk that fails to load', () => {
  test('each delivery to the fetch handler is 500 handler_failed, and on() is never called', async () => {
    const sdk = await webhooksWithoutReceiver();
    const on = vi.fn();
    const handler = sdk.createWebhookHandler({ secret: SECRET, on });
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await handler(signed());
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: 'handler_failed' });
    }
    expect(on).not.toHaveBeenCalled();
  });

  test('each delivery over a socket (toNodeListener) is 500 handler_failed, and the server goes on serving', async () => {
    const sdk = await webhooksWithoutReceiver();
    const served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on() {} })));
    try {
      expect(await deliver(served.url)).toEqual({ status: 500, body: { error: 'handler_failed' } });
      expect(await deliver(served.url)).toEqual({ status: 500, body: { error: 'handler_failed' } });
    } finally {
      await served.close();
    }
  });

  test('a bad option still throws when the handler is made: the options are checked before anything loads', async () => {
    const sdk = await webhooksWithoutReceiver();
    expect(() => sdk.createWebhookHandler({ secret: SECRET, on: 'not a function' as never })).toThrow(
      '[svc-sdk] createWebhookHandler: on must be a function (or pass an inbox)',
    );
  });
});

describe('a delivery that comes before the receiver has loaded', () => {
  test('waits for it, and is answered and processed as any other', async () => {
    vi.resetModules();
    const sdk = await import('../../src/webhooks/index.js');
    const events: string[] = [];
    const handler = sdk.createWebhookHandler({ secret: SECRET, on: (event) => void events.push(event.delivery_id) });
    // Sent in the same turn the handler was made: its receiver is still on its way.
    const first = envelope('d-first');
    const [answer, duplicate] = await Promise.all([handler(signed(first)), handler(signed(first))]);
    expect([answer.status, duplicate.status].sort()).toEqual([200, 200]);
    // The memory store saw both: the event ran once.
    expect(events).toEqual(['d-first']);
  });
});
