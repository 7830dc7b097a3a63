// Bounded in time as in size. toNodeListener gives a body bodyTimeoutMs to arrive, then answers 408
// and closes the connection: senders that trickle their body a byte at a time, or declare a
// Content-Length longer than what they send, no longer hold a socket for node:http's 300 s. The
// fetch handler reads at most maxBodyBytes whatever the Content-Length says.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test, vi } from 'vitest';
import * as sdk from '../../src/webhooks/index.node.js';
import { ENTRIES } from './entries.js';
import { envelope, serve, sign, SECRET, type Served } from './wire.js';

const BODY_TIMEOUT_MS = 300;

/** What a raw socket got back: the status line's code, and whether the server closed the connection. */
interface Outcome {
  status: number;
  closedByServer: boolean;
}

/** Opens a socket, sends the head and `start` of the body; `trickle` more bytes follow one every 20 ms while it is open. */
function slowSender(port: number, declaredLength: number, start: string, trickle: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(`POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\nx-svc-signature: ${sign(start + trickle)}\r\ncontent-length: ${declaredLength}\r\n\r\n${start}`);
      let at = 0;
      timer = setInterval(() => {
        if (at < trickle.length && socket.writable) socket.write(trickle[at++]!);
      }, 20);
    });
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => {});
    // The server closed its side: what it answered, and that it closed (not us).
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]), closedByServer: true });
    });
    setTimeout(() => reject(new Error(`still open after 5 s; received: ${received.slice(0, 200)}`)), 5000).unref();
  });
}

describe('toNodeListener bodyTimeoutMs', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  test('50 senders trickling a byte every 20 ms: each answered 408 and its connection closed; onVerificationError hears body_timeout', async () => {
    const onVerificationError = vi.fn();
    const on = vi.fn();
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on, onVerificationError }), { bodyTimeoutMs: BODY_TIMEOUT_MS }));
    const body = envelope();
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => slowSender(served!.port, body.length, '', body)));
    expect(outcomes).toEqual(Array(50).fill({ status: 408, closedByServer: true }));
    expect(onVerificationError).toHaveBeenCalledTimes(50);
    expect(onVerificationError.mock.calls[0]![0]).toBe('body_timeout');
    expect(on).not.toHaveBeenCalled();
    const open = await new Promise<number>((resolve, reject) => served!.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    expect(open).toBe(0);
  });

  test('a Content-Length longer than the body sent: 408 and closed', async () => {
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on() {} }), { bodyTimeoutMs: BODY_TIMEOUT_MS }));
    const body = envelope();
    expect(await slowSender(served.port, body.length + 100, body, '')).toEqual({ status: 408, closedByServer: true });
  });

  test('a body_timeout reaches the receiver hooks as a refusal (408), with nothing verified', async () => {
    const outcomes: string[] = [];
    const hooks = { onVerified: () => void outcomes.push('verified'), onOutcome: (o: sdk.DeliveryOutcome) => void outcomes.push(`${o.outcome}:${o.reason}:${o.status}`) };
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on() {}, hooks }), { bodyTimeoutMs: BODY_TIMEOUT_MS }));
    const body = envelope();
    expect(await slowSender(served.port, body.length + 100, body, '')).toEqual({ status: 408, closedByServer: true });
    expect(outcomes).toEqual(['refused:body_timeout:408']);
  });

  test('a body that arrives in time is processed, however it is split', async () => {
    const on = vi.fn();
    served = await serve(sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on }), { bodyTimeoutMs: 5000 }));
    const body = envelope();
    const response = await fetch(served.url, {
      method: 'POST',
      headers: { 'x-svc-signature': sign(body) },
      body: new ReadableStream({
        start(controller) {
          for (const part of [body.slice(0, 10), body.slice(10)]) controller.enqueue(new TextEncoder().encode(part));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(200);
    expect(on).toHaveBeenCalledTimes(1);
  });
});

describe.each(ENTRIES)('%s entry: the fetch handler reads at most maxBodyBytes', (_name, entry) => {
  test('a Request whose Content-Length says 100 while its body is 200 MiB: 413 after reading at most the limit', async () => {
    const chunk = new Uint8Array(64 * 1024);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 200 * 1024 * 1024) return controller.close();
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const onVerificationError = vi.fn();
    const handler = entry.createWebhookHandler({ secret: SECRET, on() {}, maxBodyBytes: 1024 * 1024, onVerificationError });
    const request = new Request('http://127.0.0.1/webhooks', {
      method: 'POST',
      headers: { 'content-length': '100', 'x-svc-signature': sign('x') },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(request.headers.get('content-length')).toBe('100');
    const response = await handler(request);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'body_too_large' });
    expect(onVerificationError).toHaveBeenCalledWith('body_too_large', request);
    // The limit and the stream's read-ahead, not 200 MiB.
    expect(pulled).toBeLessThanOrEqual(1024 * 1024 + 4 * chunk.byteLength);
  });
});
