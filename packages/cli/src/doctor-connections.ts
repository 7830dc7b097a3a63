// What the network did for one request of `svc-sdk doctor`: every connection undici opened (to the
// service, or to a proxy and then through it), seen on undici's diagnostics channels, which Node's
// own fetch and the undici package both publish to. The doctor reads its route and its DNS, TCP,
// CONNECT and TLS steps from them instead of re-deciding NO_PROXY or redoing a handshake on its own.
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

/** One connection attempt: to where (`host:port`, the scheme's port filled in), and how it ended. */
export interface Connection {
  readonly target: string;
  readonly hostname: string;
  readonly protocol: string;
  /** The socket once connected (a TLSSocket for https, after its handshake). */
  socket?: Socket | undefined;
  /** The handshake's protocol and the peer's certificate, read when it connected (a socket the request's end destroyed names neither). */
  tls?: { protocol: string; certificate: PeerCertificate } | undefined;
  /** Why it failed. */
  error?: (Error & { code?: string; address?: string }) | undefined;
}

/** The parts of a peer certificate the doctor prints. */
export interface PeerCertificate {
  subject?: Record<string, string | string[]>;
  issuer?: Record<string, string | string[]>;
  valid_to?: string;
}

interface ConnectMessage {
  connectParams: { host: string; hostname: string; protocol: string; port: string | number };
  socket?: Connection['socket'];
  error?: Connection['error'];
}

/** `host:port` of a connection or a URL, with the scheme's default port written out. */
export function targetOf(hostname: string, port: string | number, protocol: string): string {
  return `${hostname}:${String(port) || (protocol === 'https:' ? '443' : '80')}`;
}

/**
 * Records the connections opened while `run` runs: every one, as the reader looks up the service's and its
 * proxies' by target (another of the process's connections meanwhile is listed, and never read).
 */
export async function watchConnections<T>(run: () => Promise<T>): Promise<{ result: T; connections: Connection[] }> {
  const connections: Connection[] = [];
  const key = ({ connectParams: at }: ConnectMessage) => targetOf(at.hostname, at.port, at.protocol);
  const open = (message: ConnectMessage) => connections.findLast((seen) => seen.target === key(message) && !seen.socket && !seen.error);
  const before = (raw: unknown) => {
    const message = raw as ConnectMessage;
    connections.push({ target: key(message), hostname: message.connectParams.hostname, protocol: message.connectParams.protocol });
  };
  // None open: a connection begun before the doctor subscribed (other work of a long-lived process).
  const connected = (raw: unknown) => {
    const { socket } = raw as ConnectMessage;
    const seen = open(raw as ConnectMessage);
    if (!seen) return;
    seen.socket = socket;
    if (socket instanceof TLSSocket) seen.tls = { protocol: socket.getProtocol() ?? 'TLS', certificate: socket.getPeerCertificate() as PeerCertificate };
  };
  const failed = (raw: unknown) => {
    const seen = open(raw as ConnectMessage);
    if (seen) seen.error = (raw as ConnectMessage).error;
  };
  const channels = [
    ['undici:client:beforeConnect', before],
    ['undici:client:connected', connected],
    ['undici:client:connectError', failed],
  ] as const;
  for (const [name, listener] of channels) diagnostics.subscribe(name, listener);
  try {
    return { result: await run(), connections };
  } finally {
    for (const [name, listener] of channels) diagnostics.unsubscribe(name, listener);
  }
}
