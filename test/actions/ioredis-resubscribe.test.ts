// The Redis store's own subscriber connection over ioredis, when the connection drops and the store
// closes before Redis answered the subscription made again after the reconnection: ioredis makes
// that subscription by itself without a handler (autoResubscribe), so its "Connection is closed"
// was an unhandled rejection, which ends a Node process by default. A Redis that answers SUBSCRIBE
// late cannot be made on demand with redis-server, so this is a small RESP server on 127.0.0.1.
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisLedgerStore } from '../../src/actions/index.js';
import { until } from './ledger-suite.js';

/** Splits the RESP arrays of commands in `buffer`; returns them and the unparsed rest. */
function commands(buffer: string): { parsed: string[][]; rest: string } {
  const parsed: string[][] = [];
  let at = 0;
  for (;;) {
    const header = /^\*(\d+)\r\n/.exec(buffer.slice(at));
    if (!header) break;
    let cursor = at + header[0].length;
    const args: string[] = [];
    for (let n = Number(header[1]); n > 0; n--) {
      const length = /^\$(\d+)\r\n/.exec(buffer.slice(cursor));
      if (!length || buffer.length < cursor + length[0].length + Number(length[1]) + 2) return { parsed, rest: buffer.slice(at) };
      cursor += length[0].length;
      args.push(buffer.slice(cursor, cursor + Number(length[1])));
      cursor += Number(length[1]) + 2;
    }
    parsed.push(args);
    at = cursor;
  }
  return { parsed, rest: buffer.slice(at) };
}

const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

/** A RESP server that answers SUBSCRIBE only the first time (the next ones wait forever) and drops a connection sent QUIT. */
function lateSubscribeServer() {
  const subscribers: Socket[] = [];
  let subscribes = 0;
  const server: Server = createServer((socket) => {
    let buffer = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      const { parsed, rest } = commands(buffer + chunk.toString('latin1'));
      buffer = rest;
      for (const [name, ...args] of parsed) {
        const command = name!.toUpperCase();
        if (command === 'INFO') socket.write(bulk('# Server\r\nredis_version:7.0.0\r\nloading:0\r\n'));
        else if (command === 'SUBSCRIBE') {
          subscribes++;
          subscribers.push(socket);
          if (subscribes === 1) socket.write(`*3\r\n${bulk('subscribe')}${bulk(args[0]!)}:1\r\n`);
        } else if (command === 'QUIT') socket.destroy(); // gone before answering: what a Redis going down at that moment does
        else socket.write('+OK\r\n');
      }
    });
  });
  return {
    server,
    get subscribes() {
      return subscribes;
    },
    /** Drops the subscriber's connection: ioredis reconnects. */
    drop: () => subscribers.at(-1)!.destroy(),
  };
}

describe('createRedisLedgerStore over ioredis: the subscription made again after a reconnection', () => {
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('a close before Redis answered it leaves no unhandled rejection, and a dropped subscriber subscribes again', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    closers.push(() => process.off('unhandledRejection', onUnhandled));
    const fake = lateSubscribeServer();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => fake.server.close(resolve)));
    const { port } = fake.server.address() as { port: number };
    const client = new Redis({ host: '127.0.0.1', port, retryStrategy: () => 20 });
    client.on('error', () => undefined);
    closers.push(() => client.disconnect());
    const store = createRedisLedgerStore(client, { acceptNoPersistence: true, warn: () => undefined });

    store.subscribe(() => undefined);
    await until(() => fake.subscribes === 1);
    fake.drop();
    // Subscribed again on the new connection (by the store: ioredis's own would do the same), never answered.
    await until(() => fake.subscribes === 2);
    await store.close();
    // One turn of the event loop for a rejection to be reported as unhandled.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(unhandled).toEqual([]);
  });
});
