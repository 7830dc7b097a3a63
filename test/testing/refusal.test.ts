import { afterEach, describe, expect, it } from 'vitest';
import { APIConnectionError, APIError, AuthenticationError, Client, NotFoundError } from '../../src/index.node.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { answeredAfterTheBody, UNREAD_BODY_DRAIN_BYTES } from '../../src/testing/listen.js';
import { KEY } from './support.js';

// A refused upload over the emulator's HTTP server: the service answers before it has read the body
// (a wrong room, a wrong key). A real server lets the client see that answer; one that closes the
// socket under a body still being sent makes fetch report a socket error instead of the status.

const TWO_MB = new Uint8Array(2 * 1024 * 1024).fill(0x61);

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function served(options: { apiKey?: string; maxUploadBytes?: number } = {}) {
  emulator = createEmulator({ deliveryDelayMs: 0, ...options });
  const server = await emulator.listen();
  return server.url;
}

/** Each call's error class name, counted. */
async function refusals(client: Client, roomId: number, count: number): Promise<Record<string, number>> {
  const names: Record<string, number> = {};
  for (let index = 0; index < count; index += 1) {
    const error = await client.documents.upload(roomId, TWO_MB, { filename: `f${index}.bin` }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    const name = error instanceof Error ? error.constructor.name : String(error);
    names[name] = (names[name] ?? 0) + 1;
  }
  return names;
}

describe('emulator.listen() answers a refused upload so the client sees the status', () => {
  it('200 back-to-back 2 MB uploads to a room that does not exist: 200 NotFoundErrors, no APIConnectionError', async () => {
    const client = new Client({ apiKey: KEY, baseUrl: await served(), maxRetries: 0 });
    const names = await refusals(client, 999_999, 200);
    expect(names).toEqual({ [NotFoundError.name]: 200 });
    expect(names[APIConnectionError.name]).toBeUndefined();
  }, 60_000);

  it('200 back-to-back 2 MB uploads over maxUploadBytes (refused from their Content-Length): 200 answers of 413', async () => {
    const client = new Client({ apiKey: KEY, baseUrl: await served({ maxUploadBytes: 1024 * 1024 }), maxRetries: 0 });
    const room = await client.rooms.create({ name: 'Refusals', room_type: 'company_investment' });
    expect(await refusals(client, room.id, 200)).toEqual({ [APIError.name]: 200 });
  }, 60_000);

  it('200 back-to-back 2 MB uploads with a wrong key: 200 AuthenticationErrors', async () => {
    const client = new Client({ apiKey: 'vdr_not_the_one', baseUrl: await served({ apiKey: 'vdr_the_one' }), maxRetries: 0 });
    expect(await refusals(client, 1, 200)).toEqual({ [AuthenticationError.name]: 200 });
  }, 60_000);
});

describe('answeredAfterTheBody (the rule under emulator.listen())', () => {
  /** A request whose body is `total` bytes in 64 KiB chunks (then silence when `stall`); `pulled()` says how many were read. */
  function streamed(total: number, { stall = false, headers = {} }: { stall?: boolean; headers?: Record<string, string> } = {}) {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= total) return stall ? new Promise<void>(() => undefined) : controller.close();
        const chunk = new Uint8Array(Math.min(64 * 1024, total - pulled));
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request('http://127.0.0.1/api/v1/rooms/9/documents', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
    return { request, pulled: () => pulled, cancelled: () => cancelled };
  }
  const refuse = async () => new Response('{"error":"room 9 not found"}', { status: 404 });

  it('reads an unread body to its end before the answer, which keeps the connection', async () => {
    const { request, pulled } = streamed(UNREAD_BODY_DRAIN_BYTES);
    const response = await answeredAfterTheBody(refuse)(request, {});
    expect(pulled()).toBe(UNREAD_BODY_DRAIN_BYTES);
    expect(response.status).toBe(404);
    expect(response.headers.get('connection')).toBeNull();
  });

  it('stops reading past the bound and answers with Connection: close', async () => {
    const { request, pulled, cancelled } = streamed(UNREAD_BODY_DRAIN_BYTES * 4);
    const response = await answeredAfterTheBody(refuse)(request, {});
    expect(pulled()).toBeLessThanOrEqual(UNREAD_BODY_DRAIN_BYTES + 2 * 64 * 1024);
    expect(cancelled()).toBe(true);
    expect(response.status).toBe(404);
    expect(response.headers.get('connection')).toBe('close');
    expect(await response.text()).toBe('{"error":"room 9 not found"}');
  });

  it('drains a body the answer cancelled (a 413 from the declared length) from the socket all the same', async () => {
    const { request, pulled } = streamed(2 * 1024 * 1024);
    const response = await answeredAfterTheBody(async (routed) => {
      await routed.body!.cancel();
      return new Response('{"error":"body too large"}', { status: 413 });
    })(request, {});
    expect(pulled()).toBe(2 * 1024 * 1024);
    expect(response.headers.get('connection')).toBeNull();
  });

  it('answers at once with Connection: close when the declared length is past the bound, reading none of it', async () => {
    const { request, pulled } = streamed(UNREAD_BODY_DRAIN_BYTES * 2, { headers: { 'content-length': String(UNREAD_BODY_DRAIN_BYTES * 2) } });
    const response = await answeredAfterTheBody(refuse)(request, {});
    expect(pulled()).toBeLessThanOrEqual(64 * 1024);
    expect(response.headers.get('connection')).toBe('close');
  });

  it('stops waiting for a body that stops coming, and answers with Connection: close', async () => {
    const { request, cancelled } = streamed(128 * 1024, { stall: true });
    const started = performance.now();
    const response = await answeredAfterTheBody(refuse, { idleMs: 100 })(request, {});
    expect(performance.now() - started).toBeLessThan(2000);
    expect(response.headers.get('connection')).toBe('close');
    expect(cancelled()).toBe(true);
  });

  it('leaves a body the answer read alone', async () => {
    const { request, pulled } = streamed(1024 * 1024);
    const response = await answeredAfterTheBody(async (read) => {
      await read.arrayBuffer();
      return new Response(null, { status: 201 });
    })(request, {});
    expect(pulled()).toBe(1024 * 1024);
    expect(response.headers.get('connection')).toBeNull();
  });
});
