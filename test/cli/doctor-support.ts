// The servers `svc-sdk doctor` is tested against, on 127.0.0.1: the emulator served over real HTTP
// or HTTPS (its fetch behind node:http / node:https, its Date header shifted when a test asks), a
// proxy that refuses every CONNECT, one that tunnels them, a listener that never accepts, and a
// receiver that refuses unsigned POSTs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { createEmulator } from '../../src/testing/index.js';
import type { Run } from './support.js';

/** A server on a free port of 127.0.0.1: its URL and a close that drops open connections. */
export interface Served {
  url: string;
  port: number;
  requests: string[];
  close(): Promise<void>;
}

async function serve(server: Server, scheme: 'http' | 'https', requests: string[]): Promise<Served> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The emulator over loopback HTTP (or HTTPS with `tls`), accepting only `apiKey` when given, its Date `dateOffsetMs` off. */
export async function serveEmulator(options: { tls?: { key: string; cert: string }; apiKey?: string; dateOffsetMs?: number } = {}): Promise<Served> {
  const emulator = createEmulator({ apiKey: options.apiKey });
  const requests: string[] = [];
  const handler = async (request: IncomingMessage, response: ServerResponse) => {
    requests.push(`${request.method} ${request.url}`);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
    const answer = await emulator.fetch(new Request(`http://${request.headers.host}${request.url}`, { method: request.method, headers }));
    const body = Buffer.from(await answer.arrayBuffer());
    const date = new Date(Date.now() + (options.dateOffsetMs ?? 0)).toUTCString();
    response.writeHead(answer.status, { ...Object.fromEntries(answer.headers), date, 'content-length': body.length });
    response.end(body);
  };
  const server = options.tls ? createHttpsServer(options.tls, handler) : createServer(handler);
  const served = await serve(server as Server, options.tls ? 'https' : 'http', requests);
  const close = served.close;
  return { ...served, close: async () => (await close(), emulator.close()) };
}

/** An HTTP proxy that answers every CONNECT with `status` (403: a corporate proxy's policy), and records what it was asked. */
export async function serveRefusingProxy(status = 403): Promise<Served> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.writeHead(403).end();
  });
  server.on('connect', (request: IncomingMessage, socket) => {
    requests.push(`CONNECT ${request.url} ${request.headers['proxy-authorization'] ?? ''}`);
    socket.end(`HTTP/1.1 ${status} Refused\r\ncontent-length: 0\r\n\r\n`);
  });
  return serve(server, 'http', requests);
}

/**
 * An HTTP proxy that tunnels every CONNECT to its target, as tinyproxy does, except that a target it
 * cannot reach drops the client's connection instead of answering 502 (as some proxies do).
 */
export async function serveTunnellingProxy(): Promise<Served> {
  const requests: string[] = [];
  const server = createServer((request, response) => void response.writeHead(405).end());
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    requests.push(`CONNECT ${request.url}`);
    const [host, port] = request.url!.split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return serve(server, 'http', requests);
}

/**
 * A relay on 127.0.0.1 that holds each connection `ms` before it passes it on to `port` (or, with `drop`, closes it
 * then): an https:// connection through it completes its handshake, or fails, that late. `onConnection` is told of each.
 */
export async function serveDelaying(port: number, ms: number, options: { drop?: boolean; onConnection?: () => void } = {}): Promise<Served> {
  const held = new Set<Socket>();
  const server = createNetServer((client) => {
    held.add(client);
    client.on('error', () => undefined);
    options.onConnection?.();
    setTimeout(() => {
      if (options.drop) return void client.destroy();
      const upstream = connect(port, '127.0.0.1', () => void upstream.pipe(client).pipe(upstream));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    }, ms).unref();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayPort = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${relayPort}`,
    port: relayPort,
    requests: [],
    close: () => new Promise((resolve) => {
      for (const socket of held) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/**
 * A port on 127.0.0.1 whose connections never complete: a listener (in a child process whose event
 * loop is then blocked, so it accepts none) with its one-place queue filled, so the kernel answers no
 * further SYN, as a firewall that drops packets does.
 */
export async function serveUnaccepting(): Promise<{ port: number; /** Ends the listener (a second call does nothing more). */ close(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', `
    const server = require('node:net').createServer();
    server.listen(0, '127.0.0.1', 0, () => {
      process.stdout.write(server.address().port + '\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    });
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const port = Number(String(line).trim());
  // Fill the queue: connect until one connection does not complete within 200 ms.
  const fillers: Socket[] = [];
  for (;;) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    fillers.push(socket);
    const connected = await Promise.race([once(socket, 'connect').then(() => true), new Promise((resolve) => setTimeout(resolve, 200, false))]);
    if (!connected) break;
  }
  const exited = once(child, 'exit');
  return {
    port,
    close: async () => {
      for (const socket of fillers) socket.destroy();
      child.kill();
      await exited;
    },
  };
}

/** A webhook receiver that refuses every request without a valid signature (all of them) with 401. */
export async function serveReceiver(status = 401): Promise<Served> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    request.resume();
    request.on('end', () => response.writeHead(status, { 'content-type': 'text/plain' }).end('invalid signature'));
  });
  return serve(server, 'http', requests);
}

/** The environment of a doctor run: the key, the service, and none of the test machine's proxies. */
export const doctorEnv = (apiKey: string, baseUrl: string, extra: Record<string, string> = {}): Record<string, string> => ({
  SVC_API_KEY: apiKey,
  SVC_BASE_URL: baseUrl,
  HTTPS_PROXY: '',
  https_proxy: '',
  HTTP_PROXY: '',
  http_proxy: '',
  NO_PROXY: '',
  no_proxy: '',
  ...extra,
});

/** The line of check `name` in a doctor run's plain output (not a terminal); throws, showing the output, when there is none. */
export function doctorLine(result: Run, name: string): string {
  const found = result.stdout.split('\n').find((text) => new RegExp(`^(ok  |fail|skip) ${name} `).test(text));
  if (found === undefined) throw new Error(`no ${name} line in:\n${result.stdout}${result.stderr}`);
  return found;
}
