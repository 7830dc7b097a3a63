// The HTTP front in process (so every check is within a mutant's reach): the Host / Origin
// allow-list, the credential, the body cap, the bind address, senders that trickle their bytes,
// progress on the response stream, and a ceiling no request can raise.
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chmodSync, mkdirSync, readdirSync, readlinkSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storedCredential } from '../../packages/mcp/src/http-credential.js';
import { createMcpHttpHandler, listenMcp, type McpHttpOptions } from '../../packages/mcp/src/http.js';
import { emulatedClient, structured, tempDir } from './support.js';

const CREDENTIAL = 'c'.repeat(20) + '-test-credential';
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function handlerWith(options: Partial<McpHttpOptions> = {}) {
  const world = emulatedClient();
  const handler = createMcpHttpHandler({ client: world.client, stateDir: tempDir(), credential: CREDENTIAL, ...options } as McpHttpOptions);
  closers.push(() => handler.close());
  return { ...world, handler };
}

async function listening(options: Partial<McpHttpOptions> = {}, limits?: Parameters<typeof listenMcp>[3]) {
  const world = handlerWith(options);
  const { server, url } = await listenMcp(world.handler.listener, 0, '127.0.0.1', limits);
  closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
  return { ...world, server, url };
}

const post = (url: string, headers: Record<string, string>, body = INIT) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
const bearer = { authorization: `Bearer ${CREDENTIAL}` };

describe('the credential', () => {
  it('is required to be made: none, or a short one, throws naming the fix', () => {
    const { client } = emulatedClient();
    expect(() => createMcpHttpHandler({ client } as unknown as McpHttpOptions)).toThrow(/\[svc-sdk\] credential: is missing: pass the bearer token clients must send/);
    expect(() => createMcpHttpHandler({ client, credential: 'short' })).toThrow(/must be a string of at least 16 characters/);
    expect(() => createMcpHttpHandler({ client, credential: 'x'.repeat(16), stateDir: tempDir() }).close()).not.toThrow();
  });

  it.each([
    ['no Authorization', {}],
    ['another token', { authorization: `Bearer ${'d'.repeat(36)}` }],
    ['the token with a character more', { authorization: `Bearer ${CREDENTIAL}x` }],
    ['the token as Basic', { authorization: `Basic ${CREDENTIAL}` }],
    ['a prefix of the token', { authorization: `Bearer ${CREDENTIAL.slice(0, -1)}` }],
  ])('a request with %s is answered 401 and reaches no tool', async (_case, headers) => {
    const { handler, sent } = handlerWith({ allowWrites: true });
    const response = await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: INIT }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.text()).toMatch(/needs its credential: send Authorization: Bearer <credential>/);
    expect(sent).toEqual([]);
  });

  it.each([
    ['a word before Bearer', `xBearer ${CREDENTIAL}`, 401],
    ['words after the token', `Bearer ${CREDENTIAL} junk`, 401],
    ['two spaces after Bearer', `Bearer  ${CREDENTIAL}`, 200],
    ['a tab after Bearer', `Bearer\t${CREDENTIAL}`, 200],
  ])('Authorization with %s: %s', async (_case, authorization, status) => {
    const { handler } = handlerWith();
    expect((await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...JSON_HEADERS, authorization }, body: INIT }))).status).toBe(status);
  });

  it('each refusal is a JSON-RPC error with its own code', async () => {
    const { handler } = handlerWith({ maxBodyBytes: 2048 });
    const at = async (url: string, headers: Record<string, string>, body = INIT) => {
      const response = await handler.fetch(new Request(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body }));
      return { status: response.status, body: (await response.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } } };
    };
    expect(await at('http://attacker.example/mcp', bearer)).toMatchObject({ status: 403, body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/^\[svc-sdk\] /) } } });
    expect(await at('http://127.0.0.1/mcp', {})).toMatchObject({ status: 401, body: { jsonrpc: '2.0', id: null, error: { code: -32001 } } });
  });

  it('with the token (any case of "Bearer"), the v2 client lists and calls', async () => {
    const { url } = await listening();
    expect((await post(url, { authorization: `bearer ${CREDENTIAL}` })).status).toBe(200);
    const client = new McpClient({ name: 'http', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer } }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('room_ask');
    await client.close();
  });

  it('credential: false serves without one (behind a front that authenticates)', async () => {
    const { handler } = handlerWith({ credential: false });
    expect((await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: JSON_HEADERS, body: INIT }))).status).toBe(200);
  });

  it('is made once per state folder, 0600, and read again; a file others can read is refused', async () => {
    const dir = tempDir();
    const first = await storedCredential(dir);
    expect(first.made).toBe(true);
    expect(first.credential).toMatch(/^[\w-]{43}$/);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    const again = await storedCredential(dir);
    expect(again).toEqual({ ...first, made: false });
    chmodSync(first.path, 0o644);
    await expect(storedCredential(dir)).rejects.toThrow(/is a link or readable by others/);
    const short = tempDir();
    writeFileSync(join(short, 'http-credential'), `${'x'.repeat(15)}\n`, { mode: 0o600 });
    await expect(storedCredential(short)).rejects.toThrow(/holds no credential/);
    const sixteen = tempDir();
    writeFileSync(join(sixteen, 'http-credential'), `${'y'.repeat(16)}\n`, { mode: 0o600 });
    expect((await storedCredential(sixteen)).credential).toBe('y'.repeat(16));
    const linked = tempDir();
    writeFileSync(join(linked, 'elsewhere'), `${'z'.repeat(40)}\n`, { mode: 0o600 });
    symlinkSync(join(linked, 'elsewhere'), join(linked, 'http-credential'));
    await expect(storedCredential(linked)).rejects.toThrow(/is a link or readable by others/);
  });
});

describe('the stored credential, attacked through the state folder', () => {
  it('a folder planted at the credential\'s path is refused, naming the file', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'http-credential'), { mode: 0o700 });
    await expect(storedCredential(dir)).rejects.toThrow(/http-credential is a link or readable by others/);
  });

  it('a state folder under which no file can be created fails with that error (the open), not a later one', async () => {
    const dir = tempDir();
    const made = await storedCredential(join(dir, 'deeper', 'still'));
    expect(made.made).toBe(true);
    expect(statSync(join(dir, 'deeper', 'still')).mode & 0o777).toBe(0o700);
    if (process.platform === 'linux') await expect(storedCredential('/proc/self')).rejects.toMatchObject({ code: 'ENOENT', syscall: 'open' });
  });

  it.skipIf(process.platform !== 'linux')('closes the file it made: no descriptor of the credential stays open', async () => {
    const { path } = await storedCredential(tempDir());
    const open = readdirSync('/proc/self/fd').map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    });
    expect(open).not.toContain(realpathSync(path));
  });
});

describe('Host, Origin and the body cap, checked before anything else', () => {
  it('a Host or Origin outside the allow-list is 403 even with the credential; loopback names pass', async () => {
    const { url } = await listening();
    const port = new URL(url).port;
    expect((await post(url, { ...bearer, host: 'attacker.example' })).status).toBe(403);
    expect((await post(url, { ...bearer, host: `attacker.example:${port}` })).status).toBe(403);
    expect((await post(url, { ...bearer, origin: 'https://attacker.example' })).status).toBe(403);
    expect((await post(url, { ...bearer, origin: 'http://127.0.0.1.attacker.example' })).status).toBe(403);
    expect((await post(url, { ...bearer, host: `localhost:${port}`, origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await post(url, { ...bearer, host: `[::1]:${port}` })).status).toBe(200);
  });

  it('allowedHosts / allowedOrigins replace the loopback defaults', async () => {
    const { handler } = handlerWith({ allowedHosts: ['mcp.internal'], allowedOrigins: ['app.internal'] });
    const at = (url: string, headers: Record<string, string> = {}) => handler.fetch(new Request(url, { method: 'POST', headers: { ...JSON_HEADERS, ...bearer, ...headers }, body: INIT }));
    expect((await at('http://mcp.internal/mcp')).status).toBe(200);
    expect((await at('http://127.0.0.1/mcp')).status).toBe(403);
    expect((await at('http://mcp.internal/mcp', { origin: 'https://app.internal' })).status).toBe(200);
    expect((await at('http://mcp.internal/mcp', { origin: 'http://localhost' })).status).toBe(403);
  });

  it('a body over the cap is 413, by its content-length or as it streams; one at the cap passes', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'room_ask', arguments: { room_id: 1, question: 'x'.repeat(1500) } } });
    const { url, handler } = await listening({ maxBodyBytes: body.length });
    expect((await post(url, bearer, `${body} `)).status).toBe(413);
    const chunked = new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode(`${body} `)), controller.close()) });
    expect((await fetch(url, { method: 'POST', body: chunked, headers: { ...JSON_HEADERS, ...bearer }, duplex: 'half' } as RequestInit)).status).toBe(413);
    expect((await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...JSON_HEADERS, ...bearer, 'content-length': String(body.length + 1) }, body: `${body} ` }))).status).toBe(413);
    expect((await post(url, bearer, INIT)).status).toBe(200);
  });
});

describe('the Node server', () => {
  it('bounds header and request times: 10 s and 30 s by default; a request limit under the header one is raised to it', async () => {
    const { server } = await listening();
    expect([server.headersTimeout, server.requestTimeout]).toEqual([10_000, 30_000]);
    const { server: raised } = await listening({}, { headersTimeoutMs: 2000, requestTimeoutMs: 500 });
    expect([raised.headersTimeout, raised.requestTimeout]).toEqual([2000, 2000]);
  });

  it('a body over the cap sent to the Node listener is 413 with Connection: close, as JSON-RPC -32600', async () => {
    const { url } = await listening({ maxBodyBytes: 1024 });
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'p'.repeat(2000) } });
    const answer = await new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { ...JSON_HEADERS, ...bearer, 'transfer-encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
      });
      req.on('error', reject);
      req.write(big.slice(0, 600));
      req.write(big.slice(600, 1200));
      req.end(big.slice(1200));
    });
    expect(answer.status).toBe(413);
    expect(answer.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: '[svc-sdk] request body over 1024 bytes' } });
  });

  it('a GET is passed on without a body (the SDK answers it), and a handler that throws is a JSON-RPC 500', async () => {
    const { url } = await listening();
    const get = await fetch(url, { headers: { ...bearer, accept: 'text/event-stream' } });
    expect(get.status).toBeGreaterThanOrEqual(200);
    expect(get.status).not.toBe(500);
    await get.body?.cancel();
  });

  /** A raw HTTP exchange on a socket (what fetch and node:http will not send: no Host, a GET with a body, a bad Host). */
  const raw = (url: string, text: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(url).port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk;
        if (/\r\n\r\n/.test(answer) && (/content-length: 0\r\n/i.test(answer) || /\r\n\r\n.+/s.test(answer))) socket.end();
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', () => resolve(answer));
      socket.end(text);
    });

  it('the Node adapter: a request it cannot turn into a fetch Request is a JSON-RPC 500; a GET\'s body is not read; HTTP/1.0 without Host is loopback', async () => {
    const { url } = await listening();
    const bad = await raw(url, `POST /mcp HTTP/1.1\r\nHost: a b\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(bad).toMatch(/^HTTP\/1\.1 (500|400)/);
    if (bad.startsWith('HTTP/1.1 500')) {
      expect(bad).toMatch(/content-type: application\/json/i);
      expect(bad).toContain('{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"[svc-sdk] internal error"}}');
    }
    const get = await raw(url, `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${CREDENTIAL}\r\nAccept: application/json, text/event-stream\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(get).not.toMatch(/^HTTP\/1\.1 500/);
    const head = await raw(url, `HEAD /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(head).toMatch(/^HTTP\/1\.1 \d{3}/);
    expect(head).not.toMatch(/^HTTP\/1\.1 500/);
    const old = await raw(url, `POST /mcp HTTP/1.0\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: ${INIT.length}\r\n\r\n${INIT}`);
    expect(old).toMatch(/^HTTP\/1\.[01] 200/);
  });

  it('an answer without a body stays without one, and answers keep the connection open', async () => {
    const { url } = await listening();
    const notification = await new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { ...JSON_HEADERS, ...bearer } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, connection: res.headers.connection }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    });
    expect(notification.status).toBe(202);
    expect(notification.body).toBe('');
    expect(notification.connection).not.toBe('close');
  });

  it('binds 127.0.0.1 by default, never every interface', async () => {
    const { handler } = handlerWith();
    const { server, url } = await listenMcp(handler.listener, 0);
    closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
    expect(server.address()).toMatchObject({ address: '127.0.0.1', family: 'IPv4' });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('cuts off senders that trickle their headers: 50 of 50 closed within the header limit', async () => {
    const { url } = await listening({}, { headersTimeoutMs: 400, requestTimeoutMs: 800 });
    const { port } = new URL(url);
    const started = Date.now();
    const closed = await Promise.all(
      Array.from({ length: 50 }, () =>
        new Promise<number>((resolve) => {
          const socket = connect(Number(port), '127.0.0.1');
          socket.on('error', () => {});
          socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
          const drip = setInterval(() => socket.write('X-Drip: 1\r\n'), 50);
          socket.on('close', () => (clearInterval(drip), resolve(Date.now() - started)));
          socket.resume();
        }),
      ),
    );
    expect(closed).toHaveLength(50);
    expect(Math.max(...closed)).toBeLessThan(3000);
  });

  it('cuts off a sender that trickles its body once the request limit passes', async () => {
    const { url } = await listening({}, { headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const { port } = new URL(url);
    const started = Date.now();
    const ended = await new Promise<number>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`);
      const drip = setInterval(() => socket.write('{'), 50);
      socket.on('close', () => (clearInterval(drip), resolve(Date.now() - started)));
      socket.resume();
    });
    expect(ended).toBeLessThan(3000);
  });
});

describe('the handler and the listener, at their edges', () => {
  it('made without options, or with a tool name it does not have, throws now, naming the fix', () => {
    expect(() => createMcpHttpHandler(undefined as unknown as McpHttpOptions)).toThrow(/\[svc-sdk\] credential: is missing/);
    const { client } = emulatedClient();
    expect(() => createMcpHttpHandler({ client, credential: CREDENTIAL, stateDir: tempDir(), excludeTools: ['deal_merge'] })).toThrow(/no tool is named "deal_merge"/);
  });

  it('caps bodies at 1 MiB by default: one declared a byte over is 413, one at the cap is read', async () => {
    const { handler } = handlerWith();
    const at = (length: number) => handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...JSON_HEADERS, ...bearer, 'content-length': String(length) }, body: INIT }));
    expect((await at(1024 * 1024 + 1)).status).toBe(413);
    expect((await at(1024 * 1024)).status).not.toBe(413);
  });

  it('a body of exactly the cap passes both the fetch handler and the Node listener', async () => {
    const { url, handler } = await listening({ maxBodyBytes: INIT.length });
    expect((await post(url, bearer, INIT)).status).toBe(200);
    expect((await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...JSON_HEADERS, ...bearer, 'content-length': String(INIT.length) }, body: INIT }))).status).toBe(200);
  });

  it('a body streamed to the fetch handler without a length is capped too (by the SDK, at the same size)', async () => {
    const { handler } = handlerWith({ maxBodyBytes: 1024 });
    const body = new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'p'.repeat(2000) } }))), controller.close()) });
    const response = await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...JSON_HEADERS, ...bearer }, body, duplex: 'half' } as RequestInit));
    expect(response.status).toBe(413);
  });

  it('a client that hangs up mid-call cancels the call to the service', async () => {
    const { url, client } = await listening();
    const signals: AbortSignal[] = [];
    client.webhooks.list = ((options: { signal: AbortSignal }) => {
      signals.push(options.signal);
      return new Promise((_resolve, reject) => options.signal.addEventListener('abort', () => reject(options.signal.reason as Error)));
    }) as never;
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'webhook_list', arguments: {} } });
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: ${call.length}\r\n\r\n${call}`);
    await expect.poll(() => signals.length, { timeout: 15_000 }).toBe(1);
    expect(signals[0]!.aborted).toBe(false);
    socket.destroy();
    await expect.poll(() => signals[0]!.aborted, { timeout: 15_000 }).toBe(true);
  });

  it('closing the handler aborts a call in flight on the 2026-07-28 protocol', async () => {
    const { url, client: svc, handler } = await listening();
    const signals: AbortSignal[] = [];
    svc.webhooks.list = ((options: { signal: AbortSignal }) => {
      signals.push(options.signal);
      return new Promise((_resolve, reject) => options.signal.addEventListener('abort', () => reject(options.signal.reason as Error)));
    }) as never;
    const client = new McpClient({ name: 'http-close', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' as const } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer } }));
    const call = client.callTool({ name: 'webhook_list', arguments: {} }).catch((error: Error) => error);
    await expect.poll(() => signals.length, { timeout: 15_000 }).toBe(1);
    await handler.close();
    await expect.poll(() => signals[0]!.aborted, { timeout: 15_000 }).toBe(true);
    await call;
    await client.close().catch(() => {});
  });

  it('listenMcp: a port in use rejects; an IPv6 address is bracketed in the URL; the check interval follows the header limit', async () => {
    const { server, url } = await listening();
    await expect(listenMcp(() => {}, Number(new URL(url).port), '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    const v6 = await listenMcp(() => {}, 0, '::1', { headersTimeoutMs: 2005 });
    closers.push(() => new Promise((resolve) => v6.server.close(resolve)));
    expect(v6.url).toMatch(/^http:\/\/\[::1\]:\d+\/mcp$/);
    const interval = (s: object) => (s as { connectionsCheckingInterval: number }).connectionsCheckingInterval;
    expect(interval(v6.server)).toBe(200);
    expect(interval(server)).toBe(1000);
    const quick = await listenMcp(() => {}, 0, '127.0.0.1', { headersTimeoutMs: 100 });
    closers.push(() => new Promise((resolve) => quick.server.close(resolve)));
    expect(interval(quick.server)).toBe(50);
  });
});

describe('what a request cannot change', () => {
  it.each([
    ['the previous protocol (stateless fallback)', {}],
    ['the 2026-07-28 protocol', { versionNegotiation: { mode: { pin: '2026-07-28' as const } } }],
  ])('progress notifications reach the client on the response stream during an upload, on %s', async (_era, era) => {
    const folder = tempDir('svc-mcp-http-docs-');
    mkdirSync(join(folder, 'd'));
    for (let index = 0; index < 3; index++) writeFileSync(join(folder, 'd', `f${index}.txt`), `file ${index}`);
    const { url, client: svc } = await listening({ allowWrites: true, uploadRoots: [folder] });
    const room = await svc.rooms.create({ name: 'R', room_type: 'company_investment' });
    const client = new McpClient({ name: 'http-progress', version: '1' }, era);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer } }));
    const args = { room_id: room.id, paths: ['d'] };
    const preview = await client.callTool({ name: 'room_documents_upload', arguments: args });
    const progress: number[] = [];
    const commit = await client.callTool({ name: 'room_documents_upload', arguments: { ...args, commit_token: structured(preview).commit_token } }, { onprogress: (update) => progress.push(update.progress) });
    expect(structured(commit).result.uploaded).toHaveLength(3);
    expect(progress.length).toBeGreaterThan(0);
    await client.close();
  });

  it('a host declaring roots gets no upload tool and no upload over HTTP: only the command line names roots', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.txt'), 'a');
    const { url } = await listening({ allowWrites: true });
    const client = new McpClient({ name: 'http-roots', version: '1' }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: `file://${root}` }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer } }));
    await client.sendRootsListChanged().catch(() => {});
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('room_documents_upload');
    const call = await client.callTool({ name: 'room_documents_upload', arguments: { room_id: 1, paths: [join(root, 'a.txt')] } }).then(
      (result) => JSON.stringify(result),
      (error: Error) => error.message,
    );
    expect(call).toMatch(/not listed by this server/);
    const write = await client.callTool({ name: 'webhook_delete', arguments: { webhook_id: 1 } }).then(
      (result) => JSON.stringify(result),
      (error: Error) => error.message,
    );
    expect(write).toMatch(/--allow-destructive/);
    await client.close();
  });
});
