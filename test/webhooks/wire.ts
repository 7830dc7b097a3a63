// A receiver on a real node:http server on 127.0.0.1, and signed deliveries sent to it over the
// socket: what the tests of issue 23 (store deadlines, leases, body bounds, the audit hook) share.
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeWebhookListener } from '../../src/webhooks/index.js';

export const SECRET = 'whsec_wire_secret';

/** A delivery envelope as the service writes it. */
export function envelope(deliveryId: string = crypto.randomUUID(), timestamp = new Date().toISOString()): string {
  return JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: deliveryId, timestamp, data: {} });
}

/** The X-Svc-Signature of `body`. */
export const sign = (body: string, secret = SECRET): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** A node:http server serving `listener` on 127.0.0.1. */
export interface Served {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** Serves `listener` with node:http on a free loopback port. */
export async function serve(listener: NodeWebhookListener): Promise<Served> {
  const server = createServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    port,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

/** POSTs a signed delivery of `body`; resolves with the status and the JSON answer. */
export async function deliver(url: string, body: string = envelope()): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-signature': sign(body) } });
  return { status: response.status, body: await response.json() };
}
