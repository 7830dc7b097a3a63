// The multipart body as a stream, at its own interface (src/uploads: the public API cannot reach
// it, for fetch cancels or drains a request body only once the exchange has failed): cancelling it
// or releasing it reaches the part's source, a released body ends at once, and a Blob's part is read
// in slices of at most 8 MiB (Node hands an in-memory Blob's stream over as one copy of it whole).
import { describe, expect, it } from 'vitest';
import { buildMultipart, streamFromIterable } from '../../src/uploads/multipart.js';
import { readerOf } from '../../src/uploads/part-reader.js';
import { withUploadProgress } from '../../src/uploads/progress.js';

const CHUNK = 8 * 1024;

/** Lets every pending promise job run (a stream's start, and any pull it makes on its own). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** A stream of two chunks that records the reason it was cancelled with. */
function source() {
  const cancelled: unknown[] = [];
  const chunks = [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5, 6])];
  const stream = new ReadableStream<Uint8Array>(
    {
      pull: (controller) => (chunks.length ? controller.enqueue(chunks.shift()!) : controller.close()),
      cancel: (reason) => void cancelled.push(reason),
    },
    { highWaterMark: 0 },
  );
  return { stream, cancelled };
}

const preambleOf = (multipart: { body: Blob | ReadableStream<Uint8Array> }) => (multipart.body as ReadableStream<Uint8Array>).getReader();

/** Checks that `reader`'s stream asked its source for nothing before the first read, then for one item per read (`asked()`: how many so far). */
async function readsNothingAhead(reader: ReadableStreamDefaultReader<Uint8Array>, asked: () => number): Promise<void> {
  await settled();
  expect(asked()).toBe(0);
  expect(await reader.read()).toEqual({ done: false, value: new Uint8Array([0]) });
  await settled();
  expect(asked()).toBe(1);
}

describe('a streamed multipart body', () => {
  it('with progress counted, reads nothing of the body ahead of its reader', async () => {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(new Uint8Array([pulls++])) }, { highWaterMark: 0 });
    await readsNothingAhead(preambleOf(withUploadProgress({ body, headers: {}, size: undefined }, () => undefined, undefined)), () => pulls);
  });

  type Multipart = ReturnType<typeof buildMultipart>;
  it.each<[string, (multipart: Multipart) => { body: Blob | ReadableStream<Uint8Array> }]>([
    ['as it is', (multipart) => multipart],
    ['with progress counted', (multipart) => withUploadProgress(multipart, () => undefined, undefined)],
  ])('%s, cancelled by its reader, cancels the part\'s source with the same reason', async (_how, wrap) => {
    const { stream, cancelled } = source();
    const reader = preambleOf(wrap(buildMultipart({ stream }, 'a.bin', 'application/octet-stream', CHUNK)));
    await reader.read();
    const reason = new Error('connection gone');
    await reader.cancel(reason);
    expect(cancelled).toEqual([reason]);
  });

  it('released (the exchange failed) cancels its source and ends at the next read: no more of the part, no closing boundary', async () => {
    const { stream, cancelled } = source();
    const multipart = buildMultipart({ stream }, 'a.bin', 'application/octet-stream', CHUNK);
    const reader = preambleOf(multipart);
    await reader.read();
    const reason = new Error('answered 500');
    await multipart.release!(reason);
    expect(cancelled).toEqual([reason]);
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });
});

describe('the stream over an async iterable', () => {
  it('reads nothing ahead: no item before its first read, then one item per read', async () => {
    let nexts = 0;
    const iterable = { [Symbol.asyncIterator]: () => ({ next: async () => ({ done: false, value: new Uint8Array([nexts++]) }) }) };
    await readsNothingAhead(streamFromIterable(iterable).getReader(), () => nexts);
  });

  it('cancelled, closes the iterator (a Node Readable is destroyed), and resolves for one with no return()', async () => {
    let returned = 0;
    const withReturn = { [Symbol.asyncIterator]: () => ({ next: async () => ({ done: false, value: new Uint8Array(1) }), return: async () => ({ done: true, value: (returned++, undefined) }) }) };
    await streamFromIterable(withReturn as AsyncIterable<Uint8Array>).cancel();
    expect(returned).toBe(1);
    const withoutReturn = { [Symbol.asyncIterator]: () => ({ next: async () => ({ done: false, value: new Uint8Array(1) }) }) };
    await expect(streamFromIterable(withoutReturn as AsyncIterable<Uint8Array>).cancel()).resolves.toBeUndefined();
  });
});

describe("a Blob part's reader", () => {
  it('hands the Blob over in slices of at most 8 MiB, each byte once, in order', async () => {
    const bytes = Buffer.alloc(9 * 1024 * 1024, 'a Blob of 9 MiB, not one byte repeated');
    const reader = readerOf({ blob: new Blob([bytes]) });
    const chunks: Uint8Array[] = [];
    for (let chunk = await reader.next(); chunk; chunk = await reader.next()) chunks.push(chunk);
    expect(Math.max(...chunks.map((chunk) => chunk.byteLength))).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('cancelled before its first read, or while a slice is read, resolves and cancels that slice', async () => {
    await expect(readerOf({ blob: new Blob(['abc']) }).cancel(new Error('early'))).resolves.toBeUndefined();
    // A Blob whose slices are streams that record their cancellation (as a file-backed Blob's read stops).
    const cancelled: unknown[] = [];
    class TrackedBlob extends Blob {
      override slice(start?: number, end?: number): Blob {
        const inner = super.slice(start, end).stream().getReader();
        const stream = new ReadableStream<Uint8Array>(
          {
            pull: async (controller) => {
              const { done, value } = await inner.read();
              if (done) controller.close();
              else controller.enqueue(value);
            },
            cancel: (reason) => void cancelled.push(reason),
          },
          { highWaterMark: 0 },
        );
        return { stream: () => stream } as unknown as Blob;
      }
    }
    const tracked = new TrackedBlob(['abcdef']);
    const reader = readerOf({ blob: tracked });
    expect(await reader.next()).toEqual(new TextEncoder().encode('abcdef'));
    const reason = new Error('answered 500');
    await reader.cancel(reason);
    expect(cancelled).toEqual([reason]);
  });
});

describe('a Blob or bytes part', () => {
  it('a chunk that fits in one piece is handed over as that very object, no view made of it', async () => {
    const bytes = new Uint8Array(CHUNK);
    const reader = preambleOf(buildMultipart({ bytes }, 'a.bin', 'application/octet-stream', CHUNK));
    await reader.read();
    expect((await reader.read()).value).toBe(bytes);
  });
});
