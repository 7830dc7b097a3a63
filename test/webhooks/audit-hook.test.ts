// Every refusal reaches onVerificationError, whatever the request's Host or URL: a forged delivery
// sent through toNodeListener with a Host no URL parser takes is still heard by the audit hook,
// with the Host it sent. Over raw sockets, since fetch would not send such a Host.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import * as sdk from '../../src/webhooks/index.node.js';
import type { WebhookRejectReason } from '../../src/webhooks/index.js';
import { envelope, serve, sign, type Served } from './wire.js';

/** Sends one request as raw bytes; resolves with the answer's status. */
function rawRequest(port: number, head: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`${head}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1])));
  });
}

describe('toNodeListener: onVerificationError hears every refusal, whatever the Host or URL', () => {
  const heard: Array<{ reason: WebhookRejectReason; request: Request }> = [];
  let served: Served;
  beforeAll(async () => {
    const handler = sdk.createWebhookHandler({ secret: 'whsec_wire_secret', on: vi.fn(), onVerificationError: (reason, request) => void heard.push({ reason, request }) });
    served = await serve(sdk.toNodeListener(handler));
  });
  afterAll(() => served.close());

  test.each(['[', 'a b', 'x:99999', '%zz', 'example.com'])('a forged delivery with Host %j: 401, and the hook hears it with that Host', async (host) => {
    heard.length = 0;
    const body = envelope();
    const status = await rawRequest(served.port, `POST /webhooks HTTP/1.1\r\nHost: ${host}\r\nx-svc-signature: ${sign(body, 'forged')}\r\n`, body);
    expect(status).toBe(401);
    expect(heard).toHaveLength(1);
    expect(heard[0]!.reason).toBe('invalid_signature');
    expect(heard[0]!.request.method).toBe('POST');
    expect(heard[0]!.request.headers.get('host')).toBe(host);
    expect(new URL(heard[0]!.request.url).pathname).toBe('/webhooks');
  });

  test.each(['/webhooks?%zz', '/%zz/..%2f', '//evil.example/webhooks'])('a forged delivery to %j: 401, and the hook hears it', async (path) => {
    heard.length = 0;
    const body = envelope();
    const status = await rawRequest(served.port, `POST ${path} HTTP/1.1\r\nHost: [\r\nx-svc-signature: ${sign(body, 'forged')}\r\n`, body);
    expect(status).toBe(401);
    expect(heard.map((h) => h.reason)).toEqual(['invalid_signature']);
  });

  test('an unsigned delivery with Host "[": missing_signature is heard', async () => {
    heard.length = 0;
    expect(await rawRequest(served.port, 'POST /webhooks HTTP/1.1\r\nHost: [\r\n', envelope())).toBe(401);
    expect(heard.map((h) => h.reason)).toEqual(['missing_signature']);
  });
});
