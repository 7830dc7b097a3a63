// The MCP server over stateless Streamable HTTP: one handler for current-protocol clients and,
// through the SDK's stateless fallback, clients of the previous protocol; a fresh McpServer per
// request (commit tokens live in the process ledger, so a preview and its commit may arrive on
// different requests). In front of it: a Host / Origin allow-list (loopback by default: a web page
// whose DNS name was rebound to 127.0.0.1 cannot drive the server) and a cap on the body.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createMcpHandler, localhostAllowedHostnames, localhostAllowedOrigins, originValidationResponse, validateHostHeader } from '@modelcontextprotocol/server';
import { createMcpServer, type McpServerOptions } from './server.js';

/** Default largest request body: tool arguments are small. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Options of `createMcpHttpHandler`: the server's, and what the HTTP front lets in. */
export interface McpHttpOptions extends McpServerOptions {
  /** Host names (no port) the `Host` header may name. Default: localhost, 127.0.0.1, [::1]. */
  allowedHosts?: readonly string[] | undefined;
  /** Host names an `Origin` header may name (requests without one, from non-browser clients, pass). Default: loopback. */
  allowedOrigins?: readonly string[] | undefined;
  /** Largest request body in bytes; a larger one is answered 413. Default 1 MiB. */
  maxBodyBytes?: number | undefined;
}

/** The MCP server over HTTP: a fetch handler, the same as a Node listener, and its close. */
export interface McpHttpHandler {
  /** Answers one request (Streamable HTTP, stateless; Host/Origin checked, body capped). */
  fetch(request: Request): Promise<Response>;
  /** The same as a `node:http` listener. */
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** Closes the server behind it. */
  close(): Promise<void>;
}

/**
 * A fetch handler (`Request` → `Response`) serving the MCP server over stateless Streamable HTTP,
 * and a Node listener of it. The options are checked once, here (a bad tool name throws now).
 */
export function createMcpHttpHandler(options: McpHttpOptions = {}): McpHttpHandler {
  const { allowedHosts, allowedOrigins, maxBodyBytes = DEFAULT_MAX_BODY_BYTES, ...serverOptions } = options;
  createMcpServer(serverOptions);
  const hosts = [...(allowedHosts ?? localhostAllowedHostnames())];
  const origins = [...(allowedOrigins ?? localhostAllowedOrigins())];
  const mcp = createMcpHandler(() => createMcpServer(serverOptions), { legacy: 'stateless', maxRequestBodySize: maxBodyBytes, responseMode: 'json' });

  async function fetch(request: Request): Promise<Response> {
    // A Request made in process (a fetch handler's caller, tests) carries no Host header: its URL's host stands for it.
    const host = request.headers.get('host') ?? new URL(request.url).host;
    const hostCheck = validateHostHeader(host, hosts);
    if (!hostCheck.ok) return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `[svc-sdk] ${hostCheck.message}` } }, { status: 403 });
    const refused = originValidationResponse(request, origins);
    if (refused) return refused;
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

/** Listens on 127.0.0.1:`port` (0: any free port) with `listener`; resolves with the server and its MCP endpoint URL. */
export async function listenMcp(listener: (req: IncomingMessage, res: ServerResponse) => void, port: number, host = '127.0.0.1'): Promise<{ server: Server; url: string }> {
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/mcp` };
}

function tooLarge(max: number): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `[svc-sdk] request body over ${max} bytes` } }, { status: 413 });
}

/** Node request → fetch Request (body read up to the cap) → the handler → Node response, streamed. */
async function serveNode(req: IncomingMessage, res: ServerResponse, fetch: (request: Request) => Promise<Response>, maxBodyBytes: number): Promise<void> {
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.byteLength;
        if (size > maxBodyBytes) return await send(res, tooLarge(maxBodyBytes), true);
        chunks.push(chunk);
      }
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const request = new Request(url, { method: req.method, headers, signal: abort.signal, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) });
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
