/**
 * The one bounded body reader: a body read to its end, or given up as soon as it passes `maxBytes`
 * (`undefined` then), so the sender is stopped and the rest is never read, let alone buffered. The
 * client (answers), the receiver (deliveries), the emulator (requests) and the tools (the MCP
 * server's Node listener, the CLI's printed answers, through svc-sdk/internal) read with it;
 * `readEventsAtMost` is the same rule over a Node stream's events, with a deadline, for the webhook
 * receiver's Node listener, which answers from the body's last event without a promise.
 */

/** What can be read: a web stream, or chunks in order (a Node request, any async iterable). A missing body reads as no bytes. */
export type BoundedSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null | undefined;

/** How `readAtMost` reads. */
export interface ReadAtMostOptions {
  /** Never one of the source's chunks itself (a view into a larger buffer, or one its sender may reuse), for bytes kept after the read. */
  readonly own?: boolean | undefined;
  /**
   * The length the body declares (at most `maxBytes`, checked by the caller): read into one buffer
   * of that size, with no chunk list and no joined copy (a 50 MB answer would be held twice while
   * it is joined). A longer body grows the buffer up to `maxBytes`; a shorter one is returned as long as it is.
   */
  readonly declared?: number | undefined;
  /** Past `maxBytes`, answer what was read (more than `maxBytes`: the caller sees there was more) instead of `undefined`. */
  readonly partial?: boolean | undefined;
}

// Pure: a bundle that never reads a body (verifySignature alone) drops it (15 B min+gzip, over its 600 B budget).
const DEFAULTS: ReadAtMostOptions = /* @__PURE__ */ Object.freeze({});

/**
 * Reads `body` to its end, or stops as soon as it passes `maxBytes`: `undefined` then (or, with
 * `partial`, the bytes read so far), and the source is cancelled (a stream) or closed (an iterable).
 *
 * @param body The stream or chunks to read.
 * @param maxBytes The most bytes the body may have.
 * @param options `own`, `declared` and `partial`, as ReadAtMostOptions says.
 */
export function readAtMost(body: BoundedSource, maxBytes: number, options: ReadAtMostOptions & { readonly partial: true }): Promise<Uint8Array>;
export function readAtMost(body: BoundedSource, maxBytes: number, options?: ReadAtMostOptions): Promise<Uint8Array | undefined>;
export async function readAtMost(body: BoundedSource, maxBytes: number, options: ReadAtMostOptions = DEFAULTS): Promise<Uint8Array | undefined> {
  if (body && !('getReader' in body)) return readIterable(body, maxBytes, options);
  if (options.declared !== undefined && body) return readDeclared(body, options.declared, maxBytes);
  return readStreamAtMost(body, maxBytes, options);
}

/**
 * `readAtMost` of a web stream alone (`own` and `partial` as there; no `declared`): what a reader
 * that only ever has a stream calls, so its bundle carries neither the iterable nor the declared-length reader.
 *
 * @param body The stream to read (none reads as no bytes).
 * @param maxBytes The most bytes the body may have.
 * @param options `own` and `partial`, as ReadAtMostOptions says.
 */
export async function readStreamAtMost(body: ReadableStream<Uint8Array> | null | undefined, maxBytes: number, options: ReadAtMostOptions = DEFAULTS): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body?.getReader();
  for (let chunk; reader && !(chunk = await reader.read()).done; ) {
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      // Not awaited: a tee'd body (msw hands handlers one) settles its cancel only once every branch is cancelled.
      reader.cancel().catch(() => {});
      if (!options.partial) return undefined;
      chunks.push(chunk.value);
      break;
    }
    chunks.push(chunk.value);
  }
  return options.own && chunks.length === 1 ? chunks[0]!.slice() : concat(chunks, size);
}

/** `readAtMost` over chunks in order; leaving the loop early closes the source (a Node request stops being read). */
async function readIterable(body: AsyncIterable<Uint8Array>, maxBytes: number, options: ReadAtMostOptions): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    chunks.push(chunk);
    if (size > maxBytes) return options.partial ? concat(chunks, size) : undefined;
  }
  return options.own && chunks.length === 1 ? chunks[0]!.slice() : concat(chunks, size);
}

/** A body of a declared length, read into one buffer of that size (see ReadAtMostOptions.declared). */
async function readDeclared(body: ReadableStream<Uint8Array>, declared: number, limit: number): Promise<Uint8Array | undefined> {
  let bytes = new Uint8Array(declared);
  const reader = body.getReader();
  let at = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const end = at + chunk.value.byteLength;
    if (end > bytes.byteLength) {
      if (end > limit) {
        reader.cancel().catch(() => {});
        return undefined;
      }
      const grown = new Uint8Array(Math.min(limit, Math.max(end, bytes.byteLength * 2)));
      grown.set(bytes.subarray(0, at));
      bytes = grown;
    }
    bytes.set(chunk.value, at);
    at = end;
  }
  // A view of what came: the whole buffer, or the part a shorter body filled (no copy either way).
  return bytes.subarray(0, at);
}

/** A Node readable (an `IncomingMessage`, a framework's raw request) as `readEventsAtMost` reads it: its events only, no `node:` import. */
export interface EventBodySource {
  // One overload per event read, not on(event: string, ...): @types/node 26 types
  // IncomingMessage.on through an event map, and that accepts these as 22's and 24's overloads do.
  /**
   * Listens to the body's chunks.
   *
   * @param event The body event listened to.
   * @param listener Called with each chunk of the body.
   */
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  /**
   * Listens to the body's end, or its failure (the sender went away).
   *
   * @param event The body event listened to.
   * @param listener Called once the body ended or failed.
   */
  on(event: 'end' | 'error', listener: () => void): unknown;
  /**
   * Stops listening to the body's chunks.
   *
   * @param event The body event listened to.
   * @param listener The listener given to `on`.
   */
  removeListener(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  /**
   * Stops listening to the body's end or failure.
   *
   * @param event The body event listened to.
   * @param listener The listener given to `on`.
   */
  removeListener(event: 'end' | 'error', listener: () => void): unknown;
  /** Stops reading the body (past `maxBytes`, or past the deadline). */
  pause(): unknown;
}

/** The timer a read is given up by: webhooks/deadlines.ts's coarse deadlines, one timer for every pending read. */
export interface ReadDeadlines<Handle> {
  /** Calls `expire` once the read's time is up, unless deleted first. */
  add(expire: () => void): Handle;
  /** Forgets a read's deadline (it ended). */
  delete(handle: Handle): void;
}

/** What `readEventsAtMost` hands over: the body, or why there is none. */
export type EventBodyRead = Uint8Array | 'too_large' | 'timeout' | 'unreadable';

const encoder = /* @__PURE__ */ new TextEncoder();

/**
 * Reads a Node stream's body by its events and hands `done` exactly once: the bytes (the one chunk
 * itself when there is one); `'too_large'` as soon as it passes `maxBytes` (the stream paused, the rest
 * never read); `'timeout'` when it has not ended by its deadline (paused too); `'unreadable'` when the
 * stream fails. Every listener it added is removed with the first outcome: the request may outlive it.
 * A callback, not a promise, so a caller whose next steps are synchronous answers from the last event.
 *
 * @param source The stream, seen through its events.
 * @param maxBytes The most bytes the body may have.
 * @param deadlines Where the read's deadline is kept.
 * @param done Called once with the outcome.
 */
export function readEventsAtMost<Handle>(source: EventBodySource, maxBytes: number, deadlines: ReadDeadlines<Handle>, done: (body: EventBodyRead) => void): void {
  const chunks: Uint8Array[] = [];
  let size = 0;
  // The first outcome wins, and the listeners go with it.
  const finish = (outcome: EventBodyRead) => {
    deadlines.delete(deadline);
    source.removeListener('data', onData);
    source.removeListener('end', onEnd);
    source.removeListener('error', onFailure);
    done(outcome);
  };
  const onData = (chunk: Uint8Array | string) => {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    size += bytes.byteLength;
    if (size > maxBytes) {
      // Stop reading at once: the rest is never buffered.
      source.pause();
      finish('too_large');
    } else chunks.push(bytes);
  };
  // One chunk (most deliveries) is the body itself: concat hands it on as it is.
  const onEnd = () => finish(concat(chunks, size));
  // The sender went away mid-body: with an 'error' listener, Node's IncomingMessage emits
  // ECONNRESET 'aborted' (without one it only closes). No 'close' listener: on a real request it
  // measurably raised the server CPU per delivery (the A/B is in the commit that removed it, 0e9e6da).
  const onFailure = () => finish('unreadable');
  // A body that has not ended by then (trickled, or shorter than its Content-Length) is given up: stop reading.
  const deadline = deadlines.add(() => {
    source.pause();
    finish('timeout');
  });
  source.on('data', onData);
  source.on('end', onEnd);
  source.on('error', onFailure);
}

/**
 * The chunks as one Uint8Array (the only chunk itself when there is one).
 *
 * @param chunks The chunks, in order.
 * @param size Their total length in bytes.
 */
export function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}
