// The MCP server over stateless Streamable HTTP: one handler for current-protocol clients and,
// through the SDK's stateless fallback, clients of the previous protocol; a fresh McpServer per
// request (commit tokens live in the state folder's ledger, so a preview and its commit may arrive
// on different requests). In front of it, in this order: a Host / Origin allow-list (loopback by
// default: a web page whose DNS name was rebound to 127.0.0.1 cannot drive the server), a bearer
// credential (any local process could otherwise preview and commit with the server's API key),
// and a cap on the body. Mid-call notifications (progress) go out on the response's event stream.
// What the server may do is fixed when the handler is made: no request widens it (the host's roots
// are not read; the options' upload roots are the only ones).
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, localhostAllowedHostnames, localhostAllowedOrigins, originValidationResponse, validateHostHeader } from '@modelcontextprotocol/server';
import { DEFAULT_MCP_MAX_BODY_BYTES, readAtMost } from 'svc-sdk/internal';
import { createMcpServer, type McpServerOptions } from './server.js';

/** Shortest credential accepted: a guessable one is no credential. */
export const MIN_CREDENTIAL_LENGTH = 16;

/** Options of `createMcpHttpHandler`: the server's, and what the HTTP front lets in. */
export interface McpHttpOptions extends Omit<McpServerOptions, 'hostRoots'> {
  /**
   * The bearer token every request must carry (`Authorization: Bearer <credential>`), at least 16
   * characters. Required: `false` only behind a front that authenticates callers itself.
   */
  credential: string | false;
  /** Host names (no port) the `Host` header may name. Default: localhost, 127.0.0.1, [::1]. */
  allowedHosts?: readonly string[] | undefined;
  /** Host names an `Origin` header may name (requests without one, from non-browser clients, pass). Default: loopback. */
  allowedOrigins?: readonly string[] | undefined;
  /** Largest request body in bytes; a larger one is answered 413. Default 1 MiB. */
  maxBodyBytes?: number | undefined;
}

/** The MCP server over HTTP: a fetch handler, the same as a Node listener, and its close. */
export interface McpHttpHandler {
  /**
   * Answers one request (Streamable HTTP, stateless; Host/Origin and the credential checked, body capped).
   *
   * @param request The MCP request (a POST of JSON-RPC).
   */
  fetch(request: Request): Promise<Response>;
  /**
   * The same as a `node:http` listener.
   *
   * @param req The incoming request.
   * @param res Its response.
   */
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** Closes the server behind it. */
  close(): Promise<void>;
}

/**
 * A fetch handler (`Request` → `Response`) serving the MCP server over stateless Streamable HTTP,
 * and a Node listener of it. The options are checked once, here (a bad tool name, a missing or
 * short credential throw now).
 *
 * @param options The server's options, the `credential` clients must send, and the `allowedHosts`, `allowedOrigins` and `maxBodyBytes` of its HTTP side.
 */
export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const { allowedHosts, allowedOrigins, maxBodyBytes = DEFAULT_MCP_MAX_BODY_BYTES, credential, ...rest } = options ?? ({} as McpHttpOptions);
  const expected = credentialDigest(credential);
  const serverOptions: McpServerOptions = { ...rest, hostRoots: false };
  createMcpServer(serverOptions);
  const hosts = [...(allowedHosts ?? localhostAllowedHostnames())];
  const origins = [...(allowedOrigins ?? localhostAllowedOrigins())];
  // The SDK's defaults do the rest: 2025-era clients served statelessly (legacy: 'stateless'), and a response
  // upgraded to an event stream when progress comes before the result (responseMode: 'auto').
  const mcp = createMcpHandler(() => createMcpServer(serverOptions), { maxRequestBodySize: maxBodyBytes });

  async function fetch(request: Request): Promise<Response> {
    // A Request made in process (a fetch handler's caller, tests) carries no Host header: its URL's host stands for it.
    const host = request.headers.get('host') ?? new URL(request.url).host;
    const hostCheck = validateHostHeader(host, hosts);
    if (!hostCheck.ok) return jsonError(403, -32000, hostCheck.message);
    const refused = originValidationResponse(request, origins);
    if (refused) return refused;
    if (expected !== undefined && !presents(request, expected)) {
      const response = jsonError(401, -32001, 'this MCP server needs its credential: send Authorization: Bearer <credential> (svc-sdk mcp --http printed it, or set SVC_MCP_CREDENTIAL)');
      response.headers.set('www-authenticate', 'Bearer realm="svc-sdk mcp"');
      return response;
    }
    const length = Number(request.headers.get('content-length') ?? 0);
    if (length > maxBodyBytes) return tooLarge(maxBodyBytes);
    return mcp.fetch(request);
  }

  return {
    fetch,
    listener(req, res) {
      void serveNode(req, res, fetch, maxBodyBytes);
    },
    close: () => mcp.close(),
  };
}

/** The SHA-256 of the credential (compared in constant time), or undefined for `false`; throws on a missing or short one. */
function credentialDigest(credential: string | false | undefined): Buffer | undefined {
  if (credential === false) return undefined;
  if (typeof credential !== 'string' || credential.length < MIN_CREDENTIAL_LENGTH) {
    throw new Error(
      `[svc-sdk] credential: ${credential === undefined ? 'is missing' : `must be a string of at least ${MIN_CREDENTIAL_LENGTH} characters`}: pass the bearer token clients must send (a random one: crypto.randomBytes(32).toString('base64url')), or credential: false behind a front that authenticates`,
    );
  }
  return createHash('sha256').update(credential).digest();
}

/** True when `request` carries the credential as a bearer token. */
function presents(request: Request, expected: Buffer): boolean {
  // No trailing-space case: Headers (and node:http) strip a value's surrounding whitespace.
  const match = /^Bearer[ \t]+(\S+)$/i.exec(request.headers.get('authorization') ?? '');
  return match !== null && timingSafeEqual(createHash('sha256').update(match[1]!).digest(), expected);
}

/** Time limits of the Node server: a sender that trickles its headers or body is cut off. */
export interface ListenLimits {
  /** Most milliseconds to receive a request's headers. Default 10 000. */
  headersTimeoutMs?: number | undefined;
  /** Most milliseconds to receive a whole request. Default 30 000. */
  requestTimeoutMs?: number | undefined;
}

/**
 * Listens on `host` (default 127.0.0.1; 0 as `port`: any free one) with `listener`, header and body
 * times bounded; resolves with the server and its MCP endpoint URL.
 *
 * @param listener The Node listener to serve, e.g. `createMcpHttpHandler(options).listener`.
 * @param port The port; 0 picks a free one.
 * @param host The address to listen on; `127.0.0.1` unless said.
 * @param limits Most milliseconds for a request's headers (10 000) and for the whole request (30 000).
 */
export async function listenMcp(listener: (req: IncomingMessage, res: ServerResponse) => void, port: number, host = '127.0.0.1', limits: ListenLimits = {}): Promise<{ server: Server; url: string }> {
  const headersTimeout = limits.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(limits.requestTimeoutMs ?? 30_000, headersTimeout);
  // node:http checks the two limits on this interval (30 s by default): a tenth of the headers' limit keeps them close.
  const server = createServer({ headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(50, Math.floor(headersTimeout / 10)) }, listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  // A TCP server's address is always an AddressInfo (a string only for a pipe or socket path).
  const bound = (server.address() as AddressInfo).port;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/mcp` };
}

function jsonError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code, message: `[svc-sdk] ${message}` } }, { status });
}

function tooLarge(max: number): Response {
  return jsonError(413, -32600, `request body over ${max} bytes`);
}

/** The body of a GET or HEAD: none is read. */
const NO_BODY = new Uint8Array(0);

/** Node request → fetch Request (body read up to the cap) → the handler → Node response, streamed. */
async function serveNode(req: IncomingMessage, res: ServerResponse, fetch: (request: Request) => Promise<Response>, maxBodyBytes: number): Promise<void> {
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  try {
    // The library's bounded reader: past the cap it stops reading the request, and the answer closes the connection.
    const bytes = req.method === 'GET' || req.method === 'HEAD' ? NO_BODY : await readAtMost(req, maxBodyBytes);
    if (bytes === undefined) return await send(res, tooLarge(maxBodyBytes), true);
    const headers = new Headers(Object.entries(req.headersDistinct).flatMap(([name, values]) => (values ?? []).map((value): [string, string] => [name, value])));
    // req.url is always set on a server's request.
    const url = new URL(req.url!, `http://${req.headers.host ?? '127.0.0.1'}`);
    const request = new Request(url, { method: req.method, headers, signal: abort.signal, ...(bytes.byteLength > 0 ? { body: bytes as Uint8Array<ArrayBuffer> } : {}) });
    await send(res, await fetch(request), false);
  } catch {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: '[svc-sdk] internal error' } }));
  }
}

async function send(res: ServerResponse, response: Response, close: boolean): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (close) headers['connection'] = 'close';
  res.writeHead(response.status, headers);
  if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}
