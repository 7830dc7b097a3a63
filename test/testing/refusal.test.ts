import { afterEach, describe, expect, it } from 'vitest';
import { APIConnectionError, AuthenticationError, Client, NotFoundError } from '../../src/index.node.js';
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

async function served(options: { apiKey?: string } = {}) {
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

  it('200 back-to-back 2 MB uploads with a wrong key: 200 AuthenticationErrors', async () => {
    const client = new Client({ apiKey: 'vdr_not_the_one', baseUrl: await served({ apiKey: 'vdr_the_one' }), maxRetries: 0 });
    expect(await refusals(client, 1, 200)).toEqual({ [AuthenticationError.name]: 200 });
  }, 60_000);
});

describe('answeredAfterTheBody (the rule under emulator.listen())', () => {
  /** A request whose body is `total` bytes in 64 KiB chunks; `pulled()` says how many were read. */
  function streamed(total: number) {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= total) return controller.close();
        const chunk = new Uint8Array(Math.min(64 * 1024, total - pulled));
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request('http://127.0.0.1/api/v1/rooms/9/documents', { method: 'POST', body, duplex: 'half' } as RequestInit);
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
