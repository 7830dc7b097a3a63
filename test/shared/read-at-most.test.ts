// readAtMost, the one bounded body reader (the client's answers, the receiver's deliveries, the
// emulator's requests, the MCP server's Node listener, the CLI's printed answers): it stops reading
// as soon as a body passes the limit, and stops the source, whether a web stream or chunks in order;
// readEventsAtMost, the same rule over a Node stream's events with a deadline (the receiver's Node listener).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readAtMost, readEventsAtMost } from '../../src/shared/read-at-most.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (body: Uint8Array | undefined) => (body === undefined ? undefined : new TextDecoder().decode(body));

/** A stream of `chunks`, recording how many were pulled and whether it was cancelled. */
function stream(chunks: Uint8Array[]) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (seen.pulled === chunks.length) return controller.close();
        controller.enqueue(chunks[seen.pulled++]!);
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, seen };
}

/** `chunks` as an async iterable (a Node request's shape), recording how many were taken and whether it was closed early. */
function iterable(chunks: Uint8Array[]) {
  const seen = { taken: 0, closed: false };
  const body: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => (seen.taken < chunks.length ? { done: false, value: chunks[seen.taken++]! } : { done: true, value: undefined }),
      return: async () => {
        seen.closed = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return { body, seen };
}

describe('readAtMost(body, maxBytes, options)', () => {
  it('reads a stream up to the limit whole and leaves it uncancelled; past it, undefined, the stream cancelled at the chunk that passed', async () => {
    const within = stream([bytes('ab'), bytes('cd')]);
    expect(text(await readAtMost(within.body, 4))).toBe('abcd');
    expect(within.seen.cancelled).toBe(false);
    const past = stream([bytes('ab'), bytes('cde'), bytes('f')]);
    expect(await readAtMost(past.body, 4)).toBeUndefined();
    expect(past.seen).toEqual({ pulled: 2, cancelled: true });
  });

  it('reads chunks in order (a Node request) the same way: past the limit it stops taking them and closes the source', async () => {
    const within = iterable([bytes('ab'), bytes('cd')]);
    expect(text(await readAtMost(within.body, 4))).toBe('abcd');
    expect(within.seen).toEqual({ taken: 2, closed: false });
    const past = iterable([bytes('ab'), bytes('cde'), bytes('f')]);
    expect(await readAtMost(past.body, 4)).toBeUndefined();
    expect(past.seen).toEqual({ taken: 2, closed: true });
  });

  it('partial: past the limit, what was read (the chunk that passed included), so the caller sees there was more', async () => {
    const past = stream([bytes('ab'), bytes('cde'), bytes('f')]);
    expect(text(await readAtMost(past.body, 4, { partial: true }))).toBe('abcde');
    expect(past.seen).toEqual({ pulled: 2, cancelled: true });
    const chunks = iterable([bytes('ab'), bytes('cde'), bytes('f')]);
    expect(text(await readAtMost(chunks.body, 4, { partial: true }))).toBe('abcde');
    expect(chunks.seen.closed).toBe(true);
    expect(text(await readAtMost(stream([bytes('ab')]).body, 4, { partial: true }))).toBe('ab');
  });

  it('no body is no bytes; own: a single chunk is copied, never handed out', async () => {
    expect(await readAtMost(null, 4)).toEqual(new Uint8Array(0));
    expect(await readAtMost(undefined, 4, { partial: true })).toEqual(new Uint8Array(0));
    const chunk = bytes('abc');
    expect(await readAtMost(stream([chunk]).body, 4)).toBe(chunk);
    const owned = await readAtMost(stream([chunk]).body, 4, { own: true });
    expect(owned).not.toBe(chunk);
    expect(text(owned)).toBe('abc');
    const ownedChunk = await readAtMost(iterable([chunk]).body, 4, { own: true });
    expect(ownedChunk).not.toBe(chunk);
    expect(text(ownedChunk)).toBe('abc');
    expect(await readAtMost(iterable([chunk]).body, 4)).toBe(chunk);
  });

  it('declared: into one buffer of that length; a longer body grows it up to the limit, a shorter one comes back as long as it is', async () => {
    expect(text(await readAtMost(stream([bytes('ab'), bytes('cd')]).body, 10, { declared: 4 }))).toBe('abcd');
    expect(text(await readAtMost(stream([bytes('ab'), bytes('cdef'), bytes('g')]).body, 10, { declared: 2 }))).toBe('abcdefg');
    expect(text(await readAtMost(stream([bytes('ab')]).body, 10, { declared: 4 }))).toBe('ab');
    const past = stream([bytes('ab'), bytes('cdef')]);
    expect(await readAtMost(past.body, 5, { declared: 2 })).toBeUndefined();
    expect(past.seen).toEqual({ pulled: 2, cancelled: true });
    expect(text(await readAtMost(stream([bytes('abcde')]).body, 5, { declared: 2 }))).toBe('abcde');
  });
});

/** Deadlines the test expires itself: which reads are pending, and a way to give them up now. */
function manualDeadlines() {
  const pending = new Set<() => void>();
  return {
    pending,
    add: (expire: () => void) => (pending.add(expire), expire),
    delete: (expire: () => void) => void pending.delete(expire),
    expireAll: () => [...pending].forEach((expire) => (pending.delete(expire), expire())),
  };
}

/** A Node stream read by readEventsAtMost, with every outcome `done` was handed. */
function eventRead(maxBytes: number) {
  const source = new PassThrough();
  const deadlines = manualDeadlines();
  const outcomes: (Uint8Array | string)[] = [];
  readEventsAtMost(source, maxBytes, deadlines, (body) => outcomes.push(body));
  const listeners = () => ['data', 'end', 'error'].map((event) => source.listenerCount(event));
  return { source, deadlines, outcomes, listeners };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('readEventsAtMost(source, maxBytes, deadlines, done)', () => {
  it('hands over the body read to its end (up to the limit, strings as UTF-8), once, its listeners and deadline gone', async () => {
    const read = eventRead(6);
    expect(read.listeners()).toEqual([1, 1, 1]);
    expect(read.deadlines.pending.size).toBe(1);
    // Chunks as strings (a stream with an encoding set): counted and kept as their UTF-8 bytes.
    read.source.setEncoding('utf8');
    read.source.write(bytes('abc'));
    read.source.end('déf'.slice(0, 2));
    await settled();
    expect(read.outcomes.map((body) => text(body as Uint8Array))).toEqual(['abcdé']);
    expect(read.listeners()).toEqual([0, 0, 0]);
    expect(read.deadlines.pending.size).toBe(0);
    const single = eventRead(6);
    // A Buffer: a stream hands a written Buffer on as it is (a Uint8Array it would copy into one).
    const chunk = Buffer.from('abcdef');
    single.source.end(chunk);
    await settled();
    // One chunk is the body itself, no copy.
    expect(single.outcomes).toHaveLength(1);
    expect(single.outcomes[0]).toBe(chunk);
  });

  it("past the limit: 'too_large' at the chunk that passed it, the stream paused and the rest never read", async () => {
    const read = eventRead(4);
    read.source.write(bytes('abc'));
    read.source.write(bytes('de'));
    read.source.write(bytes('fgh'));
    read.source.end();
    await settled();
    expect(read.outcomes).toEqual(['too_large']);
    expect(read.source.isPaused()).toBe(true);
    expect(read.listeners()).toEqual([0, 0, 0]);
    expect(read.deadlines.pending.size).toBe(0);
  });

  it("past its deadline: 'timeout', the stream paused; a later end is not a second outcome", async () => {
    const read = eventRead(100);
    read.source.write(bytes('ab'));
    await settled();
    read.deadlines.expireAll();
    expect(read.outcomes).toEqual(['timeout']);
    expect(read.source.isPaused()).toBe(true);
    expect(read.listeners()).toEqual([0, 0, 0]);
    read.source.end(bytes('c'));
    await settled();
    expect(read.outcomes).toEqual(['timeout']);
  });

  it("a stream that fails mid-body (the sender went away): 'unreadable'", async () => {
    const read = eventRead(100);
    read.source.write(bytes('ab'));
    read.source.destroy(new Error('aborted'));
    await settled();
    expect(read.outcomes).toEqual(['unreadable']);
    expect(read.listeners()).toEqual([0, 0, 0]);
    expect(read.deadlines.pending.size).toBe(0);
  });
});
