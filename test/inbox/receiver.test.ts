// createWebhookHandler({ secret, inbox }) over real sockets: 2xx only once the inbox has the verified
// delivery, 500 when it fails or hangs, nothing unverified stored, the hooks told `stored`.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createWebhookHandler, toNodeListener, type DeliveryOutcome, type InboxEntry, type WebhookInbox } from '../../src/webhooks/index.js';
import { deliver, envelope, serve, sign, SECRET, type Served } from '../webhooks/wire.js';

/** An inbox that keeps what it is given, and lets a test hold or fail a put. */
function recordingInbox(): WebhookInbox & { entries: InboxEntry[]; hold?: Promise<void>; fail?: Error } {
  const inbox: WebhookInbox & { entries: InboxEntry[]; hold?: Promise<void>; fail?: Error } = {
    entries: [],
    async put(entry) {
      await inbox.hold;
      if (inbox.fail) throw inbox.fail;
      inbox.entries.push(entry);
    },
  };
  return inbox;
}

const served: Served[] = [];
afterEach(async () => {
  for (const server of served.splice(0)) await server.close();
});

describe('createWebhookHandler({ secret, inbox })', () => {
  test('stores the verified delivery (its body exactly as received, kind and id) and answers 200 only once stored', async () => {
    const inbox = recordingInbox();
    let release!: () => void;
    inbox.hold = new Promise((resolve) => (release = resolve));
    const outcomes: DeliveryOutcome[] = [];
    const server = await serve(toNodeListener(createWebhookHandler({ secret: SECRET, inbox, hooks: { onOutcome: (outcome) => void outcomes.push(outcome) } })));
    served.push(server);
    const body = envelope('stored-1').replace('{}', '{"note":"é \\u00e9"}');
    let answered = false;
    const answer = deliver(server.url, body).then((result) => {
      answered = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false); // the put has not resolved: no answer yet
    release();
    expect(await answer).toEqual({ status: 200, body: { received: true } });
    expect(inbox.entries).toEqual([{ deliveryId: 'stored-1', kind: 'ping.test', body, receivedAt: expect.any(Number) }]);
    expect(outcomes.map((o) => [o.outcome, o.status])).toEqual([['stored', 200]]);
  });

  test('the fetch handler stores the same way; a retry of a stored delivery is put again (the inbox keeps the first: no dedupe store of its own)', async () => {
    const inbox = recordingInbox();
    const handler = createWebhookHandler({ secret: SECRET, inbox });
    const body = envelope('twice');
    const request = () => new Request('https://receiver.test/webhooks', { method: 'POST', body, headers: { 'x-svc-signature': sign(body) } });
    expect((await handler(request())).status).toBe(200);
    expect((await handler(request())).status).toBe(200);
    expect(inbox.entries.map((entry) => entry.deliveryId)).toEqual(['twice', 'twice']);
  });

  test('nothing unverified reaches the inbox: a bad signature is 401, a stale timestamp 400', async () => {
    const inbox = recordingInbox();
    const server = await serve(toNodeListener(createWebhookHandler({ secret: SECRET, inbox })));
    served.push(server);
    const body = envelope();
    const forged = await fetch(server.url, { method: 'POST', body, headers: { 'x-svc-signature': sign(body, 'whsec_other') } });
    expect(forged.status).toBe(401);
    expect((await deliver(server.url, envelope(undefined, '2020-01-01T00:00:00Z'))).status).toBe(400);
    expect(inbox.entries).toEqual([]);
  });

  test('an inbox that fails is 500 inbox_failed (onError hears why), so the service retries', async () => {
    const inbox = recordingInbox();
    inbox.fail = new Error('READONLY You can\'t write against a read only replica.');
    const onError = vi.fn();
    const outcomes: DeliveryOutcome[] = [];
    const server = await serve(toNodeListener(createWebhookHandler({ secret: SECRET, inbox, onError, hooks: { onOutcome: (outcome) => void outcomes.push(outcome) } })));
    served.push(server);
    expect(await deliver(server.url, envelope('fails'))).toEqual({ status: 500, body: { error: 'inbox_failed' } });
    expect(onError).toHaveBeenCalledWith(inbox.fail, expect.objectContaining({ delivery_id: 'fails' }));
    expect(outcomes.map((o) => [o.outcome, o.failure])).toEqual([['failed', 'inbox_failed']]);
  });

  test('an inbox whose put throws at once (not a promise) is 500 inbox_failed too, and onError hears what it threw', async () => {
    const thrown = new TypeError('inbox.put: not connected');
    const inbox: WebhookInbox = {
      put() {
        throw thrown;
      },
    };
    const onError = vi.fn();
    const server = await serve(toNodeListener(createWebhookHandler({ secret: SECRET, inbox, onError })));
    served.push(server);
    expect(await deliver(server.url, envelope('throws'))).toEqual({ status: 500, body: { error: 'inbox_failed' } });
    expect(onError).toHaveBeenCalledWith(thrown, expect.objectContaining({ delivery_id: 'throws' }));
  });

  test('an inbox whose put stores synchronously and returns nothing (JavaScript, no promise) is answered 200 once it returned', async () => {
    const stored: string[] = [];
    // Typed to return a promise; a plain JavaScript inbox may store at once and return nothing.
    const inbox = { put: (entry: { deliveryId: string }) => void stored.push(entry.deliveryId) } as unknown as WebhookInbox;
    const server = await serve(toNodeListener(createWebhookHandler({ secret: SECRET, inbox })));
    served.push(server);
    expect(await deliver(server.url, envelope('sync-put'))).toEqual({ status: 200, body: { received: true } });
    expect(stored).toEqual(['sync-put']);
  });

  test('an inbox that never answers is given up at storeTimeoutMs: 500, not a hung delivery', async () => {
    const inbox = recordingInbox();
    inbox.hold = new Promise(() => {});
    const onError = vi.fn();
    const server = await serve(toNodeListener(createWebhookHandler({ secret: SECRET, inbox, onError, storeTimeoutMs: 200 })));
    served.push(server);
    const started = Date.now();
    expect(await deliver(server.url)).toEqual({ status: 500, body: { error: 'inbox_failed' } });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/webhook inbox: put\(\) did not answer within 200 ms \(storeTimeoutMs\)/);
  });

  test('on and inbox are exclusive, and one of them is needed: said when the handler is made', () => {
    const inbox = recordingInbox();
    expect(() => createWebhookHandler({ secret: SECRET, inbox, on: () => {} })).toThrow(/on and inbox are exclusive: with an inbox, workers run on \(inbox\.process\(on\)\)/);
    expect(() => createWebhookHandler({ secret: SECRET })).toThrow(/on must be a function \(or pass an inbox\)/);
    // @ts-expect-error -- not an inbox
    expect(() => createWebhookHandler({ secret: SECRET, inbox: {} })).toThrow(/inbox must have a put\(entry\) method/);
    // null is not an inbox either: said as plainly, not as a TypeError about reading null.
    // @ts-expect-error -- not an inbox
    expect(() => createWebhookHandler({ secret: SECRET, inbox: null })).toThrow(/inbox must have a put\(entry\) method/);
  });
});
