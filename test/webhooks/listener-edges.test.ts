// toNodeListener at its edges, driven through its public (req, res) contract with a request that
// emits exactly what a test needs (plain Uint8Array chunks, 'error' mid-body, a body
// exactly at the limit): the cases a real server rarely produces on demand.
import { createHmac } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { describe, expect, test, vi } from 'vitest';
import type { NodeRequestLike, NodeResponseLike, NodeWebhookListener } from '../../src/webhooks/index.js';
import { ENTRIES } from './entries.js';

const SECRET = 'whsec_listener_edges_secret';
const envelope = () =>
  JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: crypto.randomUUID(), timestamp: new Date().toISOString(), data: {} });
const sign = (body: string | Uint8Array) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

/** A body stream with headers; the test emits its events. */
class FakeRequest extends EventEmitter {
  method: string | undefined = 'POST';
  url: string | undefined = '/webhooks';
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  readableEnded = false;
  pause = vi.fn();
  constructor(headers: Record<string, string | string[] | undefined>) {
    super();
    this.headers = headers;
  }
}

/**
 * The fake as the listener's request type: EventEmitter's `on` takes `(...args: any[])` listeners,
 * which the structural type's `never[]` parameters do not accept; Node's IncomingMessage does.
 */
const asNode = (req: FakeRequest) => req as unknown as NodeRequestLike;

/** What the listener answered. */
function fakeResponse(headersSent = false) {
  const sent: { status?: number; headers?: Record<string, string>; body?: string } = {};
  const res: NodeResponseLike = {
    headersSent,
    writeHead: vi.fn((status: number, headers: Record<string, string>) => Object.assign(sent, { status, headers })),
    end: vi.fn((body: string) => Object.assign(sent, { body })),
  };
  return { res, sent };
}

const BODY_EVENTS = ['data', 'end', 'error'] as const;
const listening = (req: FakeRequest) => BODY_EVENTS.map((name) => req.listenerCount(name));

/** Fails instead of hanging when the listener never answers. */
function within<T>(promise: Promise<T>, ms = 2000): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
}

/** Serves `req` through `listener`, `emit` sending its body events once the listener listens; resolves with what was answered. */
async function serve(listener: NodeWebhookListener, req: FakeRequest, emit: (req: FakeRequest) => void = () => {}) {
  const { res, sent } = fakeResponse();
  const answered = listener(asNode(req), res);
  emit(req);
  await within(answered);
  return { res, sent };
}

describe('node entry: the synchronous path', () => {
  const [[, sdk]] = ENTRIES;

  test('with node:crypto, the memory store and a synchronous on, the answer is written before any timer or I/O runs after the body\'s end event', async () => {
    const body = new TextEncoder().encode(envelope());
    const listener = sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on: () => {} }));
    const req = new FakeRequest({ 'x-svc-signature': sign(body) });
    const { res, sent } = fakeResponse();
    void listener(asNode(req), res);
    req.emit('data', body);
    req.emit('end');
    expect(sent.status).toBeUndefined();
    // receive() is one async function: its awaits are microtasks only, all run before the next macrotask.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.status).toBe(200);
  });

  test('once the handler is loaded (its first delivery), on() runs in the body\'s end event itself: no promise to wait for per delivery', async () => {
    const on = vi.fn();
    const listener = sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on }));
    const deliver = async (calledAtEnd?: number) => {
      const body = new TextEncoder().encode(envelope());
      const req = new FakeRequest({ 'x-svc-signature': sign(body) });
      const { res, sent } = fakeResponse();
      const answered = listener(asNode(req), res);
      req.emit('data', body);
      req.emit('end');
      if (calledAtEnd !== undefined) expect(on).toHaveBeenCalledTimes(calledAtEnd);
      await within(answered);
      expect(sent.status).toBe(200);
    };
    await deliver();
    await deliver(2);
    await deliver(3);
  });
});

describe.each(ENTRIES)('%s entry: toNodeListener edges', (_entry, sdk) => {
  const listenerFor = (options: Partial<Parameters<typeof sdk.createWebhookHandler>[0]> = {}) =>
    sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on: () => {}, ...options }));

  test('a streamed body of exactly maxBodyBytes, in plain Uint8Array chunks, is accepted, and the listener stops listening', async () => {
    const body = new TextEncoder().encode(envelope());
    const on = vi.fn();
    const listener = listenerFor({ on, maxBodyBytes: body.byteLength });
    const req = new FakeRequest({ 'x-svc-signature': sign(body) });
    const { res, sent } = fakeResponse();
    const answered = listener(asNode(req), res);
    req.emit('data', body.subarray(0, 10));
    req.emit('data', body.subarray(10));
    req.emit('end');
    await within(answered);
    expect(sent).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"received":true}' });
    expect(on).toHaveBeenCalledTimes(1);
    expect(listening(req)).toEqual([0, 0, 0]);
    expect(req.pause).not.toHaveBeenCalled();
  });

  test('string chunks (after req.setEncoding) are read as their UTF-8 bytes', async () => {
    const text = envelope();
    const listener = listenerFor();
    const req = new FakeRequest({ 'x-svc-signature': sign(text) });
    const { res, sent } = fakeResponse();
    const answered = listener(asNode(req), res);
    req.emit('data', text.slice(0, 7));
    req.emit('data', text.slice(7));
    req.emit('end');
    await within(answered);
    expect(sent.status).toBe(200);
  });

  test('a declared Content-Length of exactly maxBodyBytes is read, not refused', async () => {
    const body = new TextEncoder().encode(envelope());
    const listener = listenerFor({ maxBodyBytes: body.byteLength });
    const req = new FakeRequest({ 'x-svc-signature': sign(body), 'content-length': String(body.byteLength) });
    const { res, sent } = fakeResponse();
    const answered = listener(asNode(req), res);
    req.emit('data', body);
    req.emit('end');
    await within(answered);
    expect(sent.status).toBe(200);
  });

  test('one byte over maxBodyBytes: 413 with connection: close, reading paused, no listener left behind', async () => {
    const body = new TextEncoder().encode(envelope());
    const listener = listenerFor({ maxBodyBytes: body.byteLength - 1 });
    const req = new FakeRequest({ 'x-svc-signature': sign(body) });
    const { res, sent } = fakeResponse();
    const answered = listener(asNode(req), res);
    req.emit('data', body);
    await within(answered);
    expect(sent.status).toBe(413);
    expect(sent.headers).toEqual({ 'content-type': 'application/json', connection: 'close' });
    expect(JSON.parse(sent.body!)).toEqual({ error: 'body_too_large' });
    expect(req.pause).toHaveBeenCalledTimes(1);
    expect(listening(req)).toEqual([0, 0, 0]);
  });

  test('a raw body (express.raw) of exactly maxBodyBytes is accepted, as a plain Uint8Array or as text', async () => {
    for (const body of [new TextEncoder().encode(envelope()), envelope()]) {
      const size = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
      const listener = listenerFor({ maxBodyBytes: size });
      const req = new FakeRequest({ 'x-svc-signature': sign(body) });
      req.body = body;
      req.readableEnded = true;
      const { res, sent } = fakeResponse();
      await within(listener(asNode(req), res));
      expect(sent.status).toBe(200);
    }
  });

  test("an 'error' on the body stream answers 400 unreadable_body and leaves no listener", async () => {
    const listener = listenerFor();
    const req = new FakeRequest({ 'x-svc-signature': sign('x') });
    const { res, sent } = fakeResponse();
    const answered = listener(asNode(req), res);
    req.emit('data', new TextEncoder().encode('{"ev'));
    req.emit('error', new Error('socket hang up'));
    await within(answered);
    expect(sent.status).toBe(400);
    expect(JSON.parse(sent.body!)).toEqual({ error: 'unreadable_body' });
    expect(listening(req)).toEqual([0, 0, 0]);
  });

  test('an error answer other than 413 keeps the connection open (no connection: close)', async () => {
    const body = envelope();
    const listener = listenerFor();
    const req = new FakeRequest({ 'x-svc-signature': `sha256=${'0'.repeat(64)}` });
    req.body = body;
    req.readableEnded = true;
    const { res, sent } = fakeResponse();
    await within(listener(asNode(req), res));
    expect(sent.status).toBe(401);
    expect(sent.headers).toEqual({ 'content-type': 'application/json' });
  });

  test('a body parser that kept null: 500 naming the fix (mount the route before any body parser)', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const listener = listenerFor();
      const req = new FakeRequest({ 'x-svc-signature': sign('x') });
      req.body = null;
      req.readableEnded = true;
      const { res, sent } = fakeResponse();
      await within(listener(asNode(req), res));
      expect(sent.status).toBe(500);
      const { error } = JSON.parse(sent.body!) as { error: string };
      expect(error).toMatch(/^\[svc-sdk\] the request body was read by a middleware that ran first and kept nothing/);
      expect(error).toContain('mount the webhook route before any body parser');
    } finally {
      errors.mockRestore();
    }
  });

  test('when a framework already sent the headers, the listener writes nothing', async () => {
    const listener = listenerFor();
    const req = new FakeRequest({ 'x-svc-signature': sign('x') });
    req.body = envelope();
    req.readableEnded = true;
    const { res } = fakeResponse(true);
    await within(listener(asNode(req), res));
    expect(res.writeHead).not.toHaveBeenCalled();
    expect(res.end).not.toHaveBeenCalled();
  });

  test("a request object that throws (a framework's oddity) is answered 500 handler_failed", async () => {
    const listener = listenerFor();
    const req = new FakeRequest({});
    Object.defineProperty(req, 'headers', {
      get() {
        throw new Error('framework oddity');
      },
    });
    const { res, sent } = fakeResponse();
    await within(listener(asNode(req), res));
    expect(sent.status).toBe(500);
    expect(JSON.parse(sent.body!)).toEqual({ error: 'handler_failed' });
  });

  test('a request whose headers throw once its body has come (a framework oddity) is answered 500 handler_failed, not thrown into the server', async () => {
    const listener = listenerFor();
    const req = new FakeRequest({});
    let reads = 0;
    Object.defineProperty(req, 'headers', {
      get() {
        // The first read (Content-Length, before the body) works; the one after the body's end throws.
        if (++reads > 1) throw new Error('framework oddity');
        return {};
      },
    });
    const { res, sent } = fakeResponse();
    const answered = listener(asNode(req), res);
    req.emit('data', new TextEncoder().encode(envelope()));
    expect(() => req.emit('end')).not.toThrow();
    await within(answered);
    expect(sent.status).toBe(500);
    expect(JSON.parse(sent.body!)).toEqual({ error: 'handler_failed' });
  });

  test('onVerificationError hears a Request with the delivery URL, host and every header value (none undefined)', async () => {
    const heard: Request[] = [];
    const listener = listenerFor({ onVerificationError: (_reason, request) => void heard.push(request) });
    const send = async (headers: Record<string, string | string[] | undefined>, url: string | undefined) => {
      const req = new FakeRequest({ 'x-svc-signature': `sha256=${'0'.repeat(64)}`, ...headers });
      req.url = url;
      req.body = envelope();
      req.readableEnded = true;
      const { res, sent } = fakeResponse();
      await within(listener(asNode(req), res));
      expect(sent.status).toBe(401);
    };
    await send({ host: 'hooks.example.test:8443', 'x-forwarded-for': ['10.0.0.1', '10.0.0.2'], 'x-absent': undefined }, '/webhooks?source=svc');
    await send({}, undefined);
    expect(heard.map((request) => [request.method, request.url])).toEqual([
      ['POST', 'http://hooks.example.test:8443/webhooks?source=svc'],
      ['POST', 'http://localhost/'],
    ]);
    expect(heard[0]!.headers.get('x-forwarded-for')).toBe('10.0.0.1, 10.0.0.2');
    expect(heard[0]!.headers.has('x-absent')).toBe(false);
  });
});

describe.each(ENTRIES)('%s entry: toNodeListener over a wrapped handler (served through fetch)', (_entry, sdk) => {
  /** A handler wrapped by its user (for logging, say): the listener cannot call its receiver, only the function. */
  const wrapped = (options: Partial<Parameters<typeof sdk.createWebhookHandler>[0]> = {}) => {
    const handler = sdk.createWebhookHandler({ secret: SECRET, on: () => {}, ...options });
    const seen: Request[] = [];
    const listener = sdk.toNodeListener(
      async (request: Request) => {
        seen.push(request);
        return handler(request);
      },
      { bodyTimeoutMs: 50 },
    );
    return { seen, listener };
  };

  test('a declared body over 1 MiB: 413 body_too_large, connection closed, the wrapped handler never called', async () => {
    const { seen, listener } = wrapped();
    const req = new FakeRequest({ 'content-length': String(1_048_577), 'x-svc-signature': sign('x') });
    const { sent } = await serve(listener, req);
    expect(sent).toEqual({ status: 413, headers: { 'content-type': 'application/json', connection: 'close' }, body: '{"error":"body_too_large"}' });
    expect(seen).toEqual([]);
  });

  test('a body that stalls past bodyTimeoutMs: 408 body_timeout, reading paused, connection closed, never handed on', async () => {
    const { seen, listener } = wrapped();
    const req = new FakeRequest({ 'x-svc-signature': sign('x') });
    const { sent } = await serve(listener, req, (r) => void r.emit('data', new TextEncoder().encode('{"ev')));
    expect(sent).toEqual({ status: 408, headers: { 'content-type': 'application/json', connection: 'close' }, body: '{"error":"body_timeout"}' });
    expect(req.pause).toHaveBeenCalled();
    expect(seen).toEqual([]);
  });

  test("an 'error' mid-body: 400 unreadable_body with the connection kept (nothing left to read), never handed on", async () => {
    const { seen, listener } = wrapped();
    const req = new FakeRequest({ 'x-svc-signature': sign('x') });
    const { sent } = await serve(listener, req, (r) => void r.emit('error', new Error('socket hang up')));
    expect(sent).toEqual({ status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"unreadable_body"}' });
    expect(seen).toEqual([]);
  });

  test.each(['GET', 'HEAD'])('a %s reaches the wrapped handler as a Request without a body, answered 405 with Allow: POST', async (method) => {
    const { seen, listener } = wrapped();
    const req = new FakeRequest({});
    req.method = method;
    const { sent } = await serve(listener, req, (r) => void r.emit('end'));
    expect(sent).toEqual({ status: 405, headers: { 'content-type': 'application/json', allow: 'POST' }, body: '{"error":"method_not_allowed"}' });
    expect(seen.map((request) => [request.method, request.body])).toEqual([[method, null]]);
  });

  test('a request without a method is handed on as a POST with its body, and processed', async () => {
    const on = vi.fn();
    const { seen, listener } = wrapped({ on });
    const text = envelope();
    const body = new TextEncoder().encode(text);
    const req = new FakeRequest({ 'x-svc-signature': sign(body) });
    req.method = undefined;
    const { sent } = await serve(listener, req, (r) => {
      r.emit('data', body);
      r.emit('end');
    });
    expect(sent.status).toBe(200);
    expect(seen.map((request) => request.method)).toEqual(['POST']);
    // The body went with it: on() got the signed delivery.
    expect(on).toHaveBeenCalledTimes(1);
    expect(on.mock.calls[0]![0]).toEqual(JSON.parse(text));
  });

  test("a wrapper's own answer is passed on: a JSON { error } string as it is, any other text whole", async () => {
    const answers = [new Response('{"error":"teapot"}', { status: 418 }), new Response('{"error":123}', { status: 418 }), new Response('short and stout', { status: 418 })];
    const listener = sdk.toNodeListener(async () => answers.shift()!);
    const bodies: string[] = [];
    for (let index = 0; index < 3; index++) {
      const req = new FakeRequest({});
      const { sent } = await serve(listener, req, (r) => void r.emit('end'));
      expect(sent.status).toBe(418);
      bodies.push(sent.body!);
    }
    expect(bodies.map((body) => JSON.parse(body) as unknown)).toEqual([{ error: 'teapot' }, { error: '{"error":123}' }, { error: 'short and stout' }]);
  });
});

describe.each(ENTRIES)('%s entry: toNodeListener after the answer', (_entry, sdk) => {
  test('a body that ended in time is forgotten by the body deadline: nothing is paused or answered again later', async () => {
    const body = new TextEncoder().encode(envelope());
    const listener = sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on: () => {} }), { bodyTimeoutMs: 20 });
    const req = new FakeRequest({ 'x-svc-signature': sign(body) });
    const { res, sent } = await serve(listener, req, (r) => {
      r.emit('data', body);
      r.emit('end');
    });
    expect(sent.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(req.pause).not.toHaveBeenCalled();
    expect(res.writeHead).toHaveBeenCalledTimes(1);
  });

  test('onVerificationError hears a delivery whose URL no parser takes (http://[), as http://invalid.host/', async () => {
    const heard: string[] = [];
    const listener = sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on: () => {}, onVerificationError: (_reason, request) => void heard.push(request.url) }));
    const req = new FakeRequest({ 'x-svc-signature': `sha256=${'0'.repeat(64)}` });
    req.url = 'http://[';
    req.body = envelope();
    req.readableEnded = true;
    const { sent } = await serve(listener, req);
    expect(sent.status).toBe(401);
    expect(heard).toEqual(['http://invalid.host/']);
  });
});
