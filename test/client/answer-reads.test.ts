// How an answer's body is read (attempt.ts, readBody): bounded by maxResponseBytes to the byte, a
// declared Content-Length read into one buffer whose chunks are let go as they are copied, and a
// Content-Length that is not the body's (a custom fetch's Response, or a compressed answer, which
// fetch inflates) trusted for nothing but a first guess. Custom fetches make the Responses a network
// fetch cannot: a body in chosen chunks, no body under a Content-Length, a length no buffer could hold.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Client, SvcError } from '../../src/index.node.js';
import { API_KEY } from '../support/msw.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const encoder = new TextEncoder();

/** A client whose fetch answers every request with `answer()`. */
const clientAnswering = (answer: () => Response, maxResponseBytes?: number) =>
  new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', maxRetries: 0, maxResponseBytes, fetch: async () => answer() });

/** A body stream of `chunks`, each handed out when the reader asks (none queued ahead); `onCancel` hears a cancel. */
function chunked(chunks: Uint8Array[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (index < chunks.length) controller.enqueue(chunks[index++]!);
        else controller.close();
      },
      cancel: onCancel,
    },
    { highWaterMark: 0 },
  );
}

const text = (body: BodyInit | null, headers: Record<string, string>) => () => new Response(body, { status: 200, headers: { 'content-type': 'text/plain', ...headers } });

describe('maxResponseBytes is a bound to the byte', () => {
  it('an answer whose Content-Length is exactly maxResponseBytes is read', async () => {
    const client = clientAnswering(text('{"id":3}', { 'content-length': '8' }), 8);
    await expect(client.request({ method: 'GET', path: '/rooms/3' })).resolves.toBe('{"id":3}');
  });

  it('a body longer than its Content-Length that ends exactly at maxResponseBytes is read', async () => {
    const client = clientAnswering(text(chunked([encoder.encode('abcd'), encoder.encode('efghij')]), { 'content-length': '4' }), 10);
    await expect(client.request({ method: 'GET', path: '/notes' })).resolves.toBe('abcdefghij');
  });

  it('a body that passes maxResponseBytes though it declared less is cancelled, so its sender stops', async () => {
    let cancelled = false;
    const body = chunked([encoder.encode('a'.repeat(30)), encoder.encode('b'.repeat(30)), encoder.encode('c'.repeat(30))], () => {
      cancelled = true;
    });
    const client = clientAnswering(text(body, { 'content-length': '10' }), 50);
    const error = await client.request({ method: 'GET', path: '/notes' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as Error).message).toContain('it passed 50 bytes while being read');
    await expect.poll(() => cancelled).toBe(true);
  });
});

describe('a Content-Length that is not the body\'s length', () => {
  it('a body longer than declared, in several chunks: every byte is kept as the buffer grows', async () => {
    const client = clientAnswering(text(chunked(['ab', 'c', 'de', 'fghij', 'k'].map((part) => encoder.encode(part))), { 'content-length': '4' }));
    await expect(client.request({ method: 'GET', path: '/notes' })).resolves.toBe('abcdefghijk');
  });

  it('the buffer grows to what arrived, never to maxResponseBytes: a call allowing any size reads a small answer', async () => {
    const client = clientAnswering(text(chunked([encoder.encode('x'.repeat(100))]), { 'content-length': '4' }), Number.MAX_SAFE_INTEGER);
    await expect(client.request({ method: 'GET', path: '/notes' })).resolves.toBe('x'.repeat(100));
  });

  it('a compressed answer: its Content-Length (the wire\'s) sizes no buffer, whatever it says', async () => {
    // Fetch inflates a gzip body and keeps the wire's headers; a length no buffer could hold must not matter.
    const client = clientAnswering(() =>
      new Response('{"id":3}', { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': '100000000000000000000' } }),
    );
    await expect(client.request({ method: 'GET', path: '/rooms/3' })).resolves.toEqual({ id: 3 });
  });

  it('no body under a Content-Length (a HEAD-like answer): no bytes, and the call succeeds', async () => {
    const client = clientAnswering(() => new Response(null, { status: 200, headers: { 'content-length': '5' } }));
    await expect(client.request({ method: 'DELETE', path: '/rooms/3' })).resolves.toBeUndefined();
  });
});

describe('an answer with a Content-Length is read into one buffer', () => {
  it('each chunk is copied and let go: none is held until the body ends (no chunk list)', async () => {
    const parts = ['a', 'b', 'c', 'd'].map((letter) => letter.repeat(4096));
    let collected = false;
    const registry = new FinalizationRegistry(() => {
      collected = true;
    });
    let index = 0;
    let heldToTheEnd: boolean | undefined;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const chunk = encoder.encode(parts[index]!);
          // The second chunk is watched: when the last is asked for, the reader holds the third at most.
          if (index === 1) registry.register(chunk, 'second');
          if (index === 3) {
            // Collected, and a turn of the event loop for the registry's callback to run.
            for (let round = 0; round < 2; round++) {
              collect();
              await new Promise((resolve) => setTimeout(resolve, 0));
            }
            heldToTheEnd = !collected;
          }
          controller.enqueue(chunk);
          if (++index === parts.length) controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const client = clientAnswering(text(body, { 'content-length': String(4 * 4096) }));
    await expect(client.request({ method: 'GET', path: '/notes' })).resolves.toBe(parts.join(''));
    expect(heldToTheEnd).toBe(false);
  });
});
