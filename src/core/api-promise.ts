import { rateLimitOf, type RateLimitInfo } from './rate-limit.js';
import { copyResponse } from './response-copy.js';
import type { Exchange } from './types.js';

export type { Exchange } from './types.js';

/** What `withResponse()` gives: the parsed data, the raw response and the service's request id. */
export interface WithResponse<T> {
  data: T;
  /** The HTTP response, its body unread (for a list: the first page's). */
  response: Response;
  /** The service's `x-request-id`, when it sent one: quote it when reporting a problem. */
  requestId: string | undefined;
  /**
   * The limits the service announced on this answer (`RateLimit` / `RateLimit-Policy`, `X-RateLimit-*`,
   * `Retry-After`); `undefined` when it sent none of those headers.
   */
  rateLimit: RateLimitInfo | undefined;
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
  async asResponse(): Promise<Response> {
    return copyResponse(await this.#exchange);
  }

  /** The data, the HTTP response (body unread), the service's request id and the limits it announced. */
  async withResponse(): Promise<WithResponse<T>> {
    const [data, exchange] = await Promise.all([this.#parsed(), this.#exchange]);
    const response = copyResponse(exchange);
    return { data, response, requestId: response.headers.get('x-request-id') ?? undefined, rateLimit: rateLimitOf(response.headers) };
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
