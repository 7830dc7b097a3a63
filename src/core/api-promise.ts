import type { Exchange } from './types.js';

export type { Exchange } from './types.js';

/** What `withResponse()` gives: the parsed data, the raw response and the service's request id. */
export interface WithResponse<T> {
  data: T;
  /** The HTTP response, its body unread (for a list: the first page's). */
  response: Response;
  /** The service's `x-request-id`, when it sent one: quote it when reporting a problem. */
  requestId: string | undefined;
}

/**
 * The promise every method returns: await it for the data, or ask for the raw response too.
 *
 * The request starts when the method is called; the body is read within the call's `timeout`
 * and parsed only when the data is asked for.
 *
 * @example
 * ```ts
 * const { data: room, requestId } = await client.rooms.create(params).withResponse();
 * const response = await client.webhooks.retrieve(3).asResponse();
 * ```
 */
export class APIPromise<T> extends Promise<T> {
  readonly #exchange: Promise<Exchange>;
  readonly #parse: (exchange: Exchange) => T | Promise<T>;
  #data: Promise<T> | undefined;

  /** @internal Built by the client's core, never by users. */
  constructor(exchange: Promise<Exchange>, parse: (exchange: Exchange) => T | Promise<T>) {
    // Settles at once with nothing: `then` is overridden to parse the exchange only when asked.
    super(settleAtOnce);
    this.#exchange = exchange;
    this.#parse = parse;
  }

  /** @internal A promise that fails with `error` (a bad argument), before anything is sent. */
  static failed<T>(error: unknown): APIPromise<T> {
    return new APIPromise<T>(Promise.reject(error), () => undefined as T);
  }

  /**
   * The HTTP response instead of the data, its body unread. Non-2xx answers still throw `APIError`.
   * The body was read from the network within the call's `timeout`; the Response holds the very
   * bytes fetch gave (a PDF stays a PDF), with a `Content-Length` that counts them and no
   * `Content-Encoding` (fetch has decompressed them already). Its body streams views of the bytes
   * the call read, so a large answer is not copied before it is read.
   */
  asResponse(): Promise<Response> {
    return this.#exchange.then(copyResponse);
  }

  /** The data, the HTTP response (body unread) and the service's request id. */
  async withResponse(): Promise<WithResponse<T>> {
    const [data, exchange] = await Promise.all([this.#parsed(), this.#exchange]);
    const response = copyResponse(exchange);
    return { data, response, requestId: response.headers.get('x-request-id') ?? undefined };
  }

  /** @internal The same exchange, its data transformed (a method derived from another). */
  map<U>(transform: (data: T) => U): APIPromise<U> {
    return new APIPromise(this.#exchange, async () => transform(await this.#parsed()));
  }

  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#parsed().then(onfulfilled, onrejected);
  }

  override catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#parsed().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onfinally);
  }

  #parsed(): Promise<T> {
    return (this.#data ??= this.#exchange.then(this.#parse));
  }
}

/** The executor of every APIPromise's own (unused) settlement: one function, not one closure per call. */
function settleAtOnce(resolve: (value: never) => void): void {
  resolve(undefined as never);
}

/** Bytes per slice of a copied body: large enough that a read costs few steps, small beside any large answer. */
const SLICE_BYTES = 1 << 20;

/**
 * A stream of `bytes` in slices, each a view made when the reader asks for it. A reader that writes
 * into a chunk it was handed writes into the call's bytes (later reads of the same call see it): the
 * price of not copying a large answer, and only a reader of raw chunks can pay it.
 */
function sliced(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const end = Math.min(at + SLICE_BYTES, bytes.byteLength);
        controller.enqueue(bytes.subarray(at, end));
        at = end;
        if (at === bytes.byteLength) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

// Statuses whose Response may not have a body (the Response constructor throws otherwise).
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * A fresh Response holding the exchange's bytes, unread, with the original status, URL and headers,
 * but headers that describe these bytes: fetch has undone any `Content-Encoding`, so it and the
 * wire's `Content-Length` (and `Transfer-Encoding`) would lie about the body.
 */
function copyResponse({ response, bytes, url }: Exchange): Response {
  const { status, statusText } = response;
  const headers = new Headers(response.headers);
  headers.delete('content-encoding');
  headers.delete('transfer-encoding');
  const nullBody = NULL_BODY_STATUSES.has(status);
  if (nullBody) headers.delete('content-length');
  else headers.set('content-length', String(bytes.byteLength));
  // No bytes, no body (null, as fetch gives it). Not `new Response(bytes)`: the constructor copies
  // them whole (Fetch, "extract a body"), and a reader's arrayBuffer() copies again, so a 50 MB
  // answer would be held three times. A stream hands the bytes out in slices as they are read, each a
  // view of the bytes (no copy): a reader's arrayBuffer() then holds the answer a second time, never a third.
  const copy = new Response(nullBody || bytes.byteLength === 0 ? null : sliced(bytes), { status, statusText, headers });
  Object.defineProperty(copy, 'url', { value: response.url || url });
  return copy;
}
