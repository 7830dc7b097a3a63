import ky, { isHTTPError, isNetworkError, isTimeoutError, type Options } from 'ky';
import type { ZodMiniType } from 'zod/mini';
import { APIPromise, type Exchange } from './api-promise.js';
import { dataOf, errorBodyOf } from './body.js';
import { APIConnectionError, APIError, APITimeoutError, SvcError, ValidationError, describeRequest } from './errors.js';
import { createCoreLog, type CoreLog, type Logger, type LogLevel } from './logger.js';
// hooks: the runner and types of client hooks (core/hooks.ts)
import { CallHooks, hookSets, joinHookSets, urlTemplateOf, type ClientHooks, type ClientHooksOption } from './hooks.js';
import { DEFAULT_MAX_PAGES, PagePromise, readPages, type ListOptions } from './pagination.js';
import { climbsOut } from './path.js';
import { checkSettings, parseParams } from './validate.js';
import { VERSION } from './version.js';

/** Options every method takes as its last argument. */
export interface RequestOptions {
  /** Aborts the request (and any pending retry). */
  signal?: AbortSignal | undefined;
  /** Milliseconds each attempt may take, reading the response body included; overrides the client's `timeout`. */
  timeout?: number | undefined;
  /** Retries for this call; overrides the client's `maxRetries`. Non-idempotent POSTs never retry. */
  maxRetries?: number | undefined;
  /** Extra headers for this call only. */
  headers?: Record<string, string> | undefined;
  // hooks: a call's own hook sets, run after the client's
  /** Hooks for this call only, run after the client's (see `ClientHooks`). */
  hooks?: ClientHooksOption | undefined;
}

/** Upload progress: bytes sent so far, and the total when it is known. */
export interface UploadProgress {
  loaded: number;
  total: number | undefined;
}

/** HTTP methods the service uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One call into the core: what to send and how to read the answer. */
export interface CoreRequest<T> {
  method: HttpMethod;
  /** Path relative to `/api/v1`, already encoded (see `path```). */
  path?: string;
  /** An absolute URL instead of a path: a list's next page. */
  url?: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  json?: unknown;
  body?: RequestBody | undefined;
  headers?: Record<string, string> | undefined;
  /** Schema of the unwrapped response (of a list: of one page's items); without one the body is returned as it came. */
  schema?: ZodMiniType<T> | undefined;
  /** Name used in error messages, like `rooms.create`. */
  operation: string;
  /** Marks a POST as safe to send again (a dry run); GET, PUT, PATCH and DELETE are already. */
  idempotent?: boolean | undefined;
  /**
   * `'error'` for uploads on Node: a redirect fails the call in fetch itself, because Node's fetch
   * keeps every chunk of a streamed body while it may have to replay it after a 307/308
   * (nodejs/undici#4058); `'manual'` keeps them too (BENCHMARKS.md, upload memory).
   */
  redirect?: 'error' | undefined;
  /** The operation answers nothing: an HTML page is not success, and a retried DELETE answered 404 is done. */
  returnsNothing?: true | undefined;
  /** Called when the exchange is over, with its error if it failed, before the caller hears of it (uploads close their input). */
  settle?: ((error: unknown) => unknown) | undefined;
}

/** A request as a resource method describes it: the operation is named once, by the call. */
type RequestSpec<T> = Omit<CoreRequest<T>, 'operation'>;

/** Checks one argument of a call against a schema, naming the call's operation in its ValidationError. */
type ParamParser = <P>(schema: ZodMiniType<P>, value: unknown) => P;

/** A request body as fetch takes it (spelled without the DOM's `BodyInit`, for Node-only type checks). */
type RequestBody = NonNullable<RequestInit['body']>;

/** Settings of the core, resolved once by the client. */
interface CoreConfig {
  /** Checked by the client, without trailing slashes. */
  baseUrl: string;
  apiKey: string;
  timeout: number;
  maxRetries: number;
  fetch?: typeof globalThis.fetch | undefined;
  headers?: Record<string, string> | undefined;
  logLevel?: LogLevel | undefined;
  logger?: Logger | undefined;
  /** `SVC_LOG`, as the client read it from the environment. */
  logEnv?: string | undefined;
  // hooks: the client's hook sets
  hooks?: ClientHooksOption | undefined;
}

/** ky retries a request only when `limit` allows it: the core sets 0 for a request that may not be replayed. */
const EVERY_METHOD = ['get', 'put', 'patch', 'delete', 'head', 'options', 'post'];

/**
 * 408, 429 and the common 5xx; `retryOtherServerErrors` adds the rest of 5xx. The list is short
 * because ky copies it on every call, retried or not (BENCHMARKS.md, "Per-request overhead").
 */
const RETRYABLE_STATUSES = [408, 429, 500, 502, 503, 504];

/** Every other 5xx is retried too (with backoff: only 429 and 503 carry a Retry-After worth honouring). */
const retryOtherServerErrors: NonNullable<Exclude<Options['retry'], number>>['shouldRetry'] = ({ error }) =>
  isHTTPError(error) && error.response.status >= 500 && !RETRYABLE_STATUSES.includes(error.response.status) ? true : undefined;

/** ky's retry settings for a client, built once: they are on every call's path. */
function retryPolicy(limit: number): NonNullable<Exclude<Options['retry'], number>> {
  return {
    limit,
    methods: EVERY_METHOD,
    statusCodes: RETRYABLE_STATUSES,
    afterStatusCodes: [429, 503], // these honour Retry-After (no jitter then: the server set the time)
    shouldRetry: retryOtherServerErrors,
    retryOnTimeout: true,
    jitter: true,
    backoffLimit: 8_000,
    maxRetryAfter: 60_000,
  };
}

/** Redirects a GET follows at most (fetch's own limit is 20: a loop would cost 20 round trips). */
const MAX_REDIRECTS = 5;

// Browsers own User-Agent (and a page's fetch may not set it); every other runtime lets the SDK name itself.
const IN_BROWSER = typeof (globalThis as { document?: unknown }).document !== 'undefined' ||
  typeof (globalThis as { importScripts?: unknown }).importScripts === 'function';
const SDK_HEADERS: Record<string, string> = IN_BROWSER
  ? { 'x-svc-sdk-version': VERSION }
  : { 'user-agent': `svc-sdk/${VERSION}`, 'x-svc-sdk-version': VERSION };

/** The options of a call that passed none: shared, and known to need no check. */
const NO_OPTIONS: RequestOptions & ListOptions = Object.freeze({});

/** What one call carries past ky to its fetch: ky forwards options it does not know (a string key: it reads them with for…in). */
const CALL = 'svcCall';

/** One call's state across its attempts. */
interface CallState {
  /** The body, kept beside ky's bodiless Request (see `#attempt`). */
  body: RequestBody | undefined;
  /**
   * The headers, kept beside ky's Request too: ky would copy them into a Headers, again into its
   * Request, and fetch again from that (BENCHMARKS.md, "Per-request overhead").
   */
  headers: Record<string, string>;
  attempts: number;
  /** The last attempt's body, read within that attempt. */
  text: string;
  /** The URL as ky sent it, query included (a custom fetch's Response may have no `url`). */
  url: string;
  redirect: 'error' | 'manual';
  /** Only a GET follows a redirect: a write is never sent again on the word of a 3xx. */
  follow: boolean;
}

/**
 * The thin HTTP core: the only module that knows ky. A call sends, retries, reads the body within
 * the attempt, maps failures to the SDK's errors, and parses the answer when it is asked for.
 */
export class HttpCore {
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #retry: NonNullable<Exclude<Options['retry'], number>>;
  readonly #prefix: string;
  readonly #origin: string;
  readonly #fetch: typeof globalThis.fetch | undefined;
  readonly #log: CoreLog;
  readonly #retryHooks: Options['hooks'];
  // The headers of every call, merged once: each call passes ky all its options in one object,
  // as ky would otherwise deep-merge an instance's defaults into every call.
  readonly #headers: Record<string, string>;
  readonly #jsonHeaders: Record<string, string>;
  /** What a redirect to another origin carries: neither the API key nor the caller's headers. */
  readonly #anonymousHeaders: Record<string, string>;
  // hooks: the client's hook sets, listed once; `undefined` when there are none
  readonly #hooks: readonly ClientHooks[] | undefined;
  /** The path of `/api/v1` under the base URL: the start of every URL template. */
  readonly #prefixPath: string;

  constructor(config: CoreConfig) {
    // The client has checked the settings and stripped the base URL's trailing slashes.
    this.#prefix = `${config.baseUrl}/api/v1`;
    this.#origin = new URL(this.#prefix).origin;
    this.#timeout = config.timeout;
    this.#maxRetries = config.maxRetries;
    this.#retry = retryPolicy(config.maxRetries);
    this.#fetch = config.fetch;
    this.#log = createCoreLog(config.logLevel, config.logger, config.logEnv);
    this.#retryHooks = this.#log.info ? { beforeRetry: [retryLogger(this.#log.info)] } : undefined;
    this.#headers = mergeHeaders(SDK_HEADERS, config.headers, { accept: 'application/json', authorization: `Bearer ${config.apiKey}` });
    this.#jsonHeaders = { ...this.#headers, 'content-type': 'application/json' };
    this.#anonymousHeaders = { ...SDK_HEADERS, accept: 'application/json' };
    this.#hooks = hookSets(config.hooks); // hooks:
    this.#prefixPath = new URL(this.#prefix).pathname; // hooks: URL templates start with it
  }

  /**
   * Starts one call: `build` checks the arguments (with `parse`, which names the operation) and
   * describes the request; a bad argument rejects the promise before anything is sent.
   */
  call<T>(operation: string, options: RequestOptions | undefined, build: (parse: ParamParser) => RequestSpec<T> | Promise<RequestSpec<T>>): APIPromise<T> {
    return new APIPromise<T>(this.#start(operation, options ?? NO_OPTIONS, build), dataOf);
  }

  /** Starts a list call: its promise reads every page, and it iterates them lazily with `for await`. */
  list<Item>(operation: string, options: ListOptions | undefined, build: (parse: ParamParser) => RequestSpec<Item[]>): PagePromise<Item> {
    const settings = options ?? NO_OPTIONS;
    const maxPages = settings.maxPages ?? DEFAULT_MAX_PAGES;
    // Every page is read with the first page's request (schema, headers) and options (auth, retries, timeout).
    const pages = (first: Exchange) =>
      readPages<Item>(first, {
        origin: this.#origin,
        maxPages,
        fetch: (url) => this.#exchange({ ...first.request, url, query: undefined }, settings),
      });
    return new PagePromise<Item>(this.#start(operation, settings, build), pages);
  }

  /** The escape hatch's call (`client.request`): a path that would leave `/api/v1` is refused. */
  request<T>(request: CoreRequest<T>, options?: RequestOptions): APIPromise<T> {
    return this.call(request.operation, options, () => {
      if (request.path !== undefined && climbsOut(request.path)) {
        throw new ValidationError(request.operation, [{ path: ['path'], message: "path must stay under /api/v1: remove its '..' segments" }]);
      }
      return request;
    });
  }

  #start<T>(operation: string, options: RequestOptions & ListOptions, build: (parse: ParamParser) => RequestSpec<T> | Promise<RequestSpec<T>>): Promise<Exchange> {
    try {
      if (options !== NO_OPTIONS) checkSettings(operation, options);
      const spec = build((schema, value) => parseParams(operation, schema, value));
      // The spec is the call's own fresh object: naming the operation on it costs no copy.
      if (spec instanceof Promise) return spec.then((ready) => this.#send(Object.assign(ready, { operation }), options));
      return this.#send(Object.assign(spec, { operation }), options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #send(request: CoreRequest<unknown>, options: RequestOptions): Promise<Exchange> {
    // No extra async frame on the common path: only an upload has something to settle.
    return request.settle ? this.#sendAndSettle(request, request.settle, options) : this.#exchange(request, options);
  }

  async #sendAndSettle(request: CoreRequest<unknown>, settle: (error: unknown) => unknown, options: RequestOptions): Promise<Exchange> {
    let exchange: Exchange;
    try {
      exchange = await this.#exchange(request, options);
    } catch (error) {
      await settle(error);
      throw error;
    }
    await settle(undefined);
    return exchange;
  }

  // hooks: with hook sets, the exchange runs inside its call's CallHooks (afterResponse, onError); without, as before
  #exchange(request: CoreRequest<unknown>, options: RequestOptions): Promise<Exchange> {
    const sets = options.hooks === undefined ? this.#hooks : joinHookSets(this.#hooks, options.hooks);
    if (sets === undefined) return this.#exchangeOnce(request, options, undefined);
    const hooks = new CallHooks(sets, {
      operation: request.operation,
      method: request.method,
      urlTemplate: this.#prefixPath + urlTemplateOf(request.path ?? ''),
    });
    return this.#exchangeOnce(request, options, hooks).then(
      (exchange) => hooks.afterResponse(exchange),
      (error: unknown) => hooks.onError(error),
    );
  }

  /** Sends one request through ky (retries, timeout per attempt) and returns its exchange, or throws an SvcError. */
  async #exchangeOnce(request: CoreRequest<unknown>, options: RequestOptions, hooks: CallHooks | undefined): Promise<Exchange> {
    const { method } = request;
    const url = request.url ?? this.#prefix + request.path;
    const timeout = options.timeout ?? this.#timeout;
    // The one guard against sending a create twice: a request that may not be replayed gets no retries.
    const replayable = method !== 'POST' || request.idempotent === true;
    const limit = replayable ? (options.maxRetries ?? this.#maxRetries) : 0;
    const hasJson = request.json !== undefined;
    let headers = hasJson ? this.#jsonHeaders : this.#headers;
    if (request.headers || options.headers) headers = mergeHeaders(headers, request.headers, options.headers);
    const call: CallState = {
      body: hasJson ? JSON.stringify(request.json) : request.body,
      attempts: 0,
      text: '',
      url,
      headers,
      redirect: request.redirect ?? 'manual',
      follow: method === 'GET',
    };
    const init: Options & { [CALL]: CallState } = {
      method,
      timeout,
      // With no retries the policy does not matter, and ky normalizes a number faster than a policy.
      retry: limit === 0 ? 0 : limit === this.#maxRetries ? this.#retry : { ...this.#retry, limit },
      // hooks: beforeRequest runs around each attempt, on the call's headers
      fetch: (hooks ? hooks.aroundAttempt(this.#attempt, call) : this.#attempt) as NonNullable<Options['fetch']>,
      [CALL]: call,
    };
    if (request.query) init.searchParams = request.query;
    if (options.signal) init.signal = options.signal;
    if (this.#retryHooks && limit > 0) init.hooks = this.#retryHooks;
    if (hooks?.hasBeforeRetry) {
      // hooks: beforeRetry hears ky's retry (after its wait) as an SvcError; `false` rethrows ky's own error, which ends
      // the retries as if the limit were reached. ky calls it only for a call with retries: never a create.
      const beforeRetry = async ({ error }: { error: Error }) => {
        if (!(await hooks.beforeRetry(toSvcError(error, call, method, url, timeout, options.signal)))) throw error;
      };
      init.hooks = { beforeRetry: [...(this.#retryHooks?.beforeRetry ?? []), beforeRetry] };
    }

    try {
      const response = await ky(url, init);
      return { response, text: call.text, url: call.url, request };
    } catch (error) {
      if (isHTTPError(error) && error.response.status === 404 && method === 'DELETE' && request.returnsNothing && call.attempts > 1) {
        // An earlier attempt deleted it and its answer was lost: the retry finding nothing is the success.
        return { response: error.response, text: '', url: call.url, request };
      }
      const failure = toSvcError(error, call, method, url, timeout, options.signal);
      if (call.attempts > 1 && this.#log.warn) {
        // The error's name and status, not its message: that quotes the service's answer, and bodies are not logged.
        const { url: failedUrl = url, status } = failure as { url?: string; status?: number };
        this.#log.warn(`[svc-sdk] ${method} ${failedUrl} gave up after ${call.attempts} attempts: ${failure.name}${status ? ` ${status}` : ''}`, {
          method,
          url: failedUrl,
          attempts: call.attempts,
          error: failure.name,
          status,
        });
      }
      throw failure;
    }
  }

  /**
   * ky's `fetch`, one attempt: sends ky's bodiless Request as a URL and an init with the body kept
   * beside it (a Request with a body costs a second copy through a TransformStream in undici:
   * BENCHMARKS.md, "Per-request overhead"), follows redirects itself, and reads the whole body before
   * returning, so ky's per-attempt timeout covers it and a body cut off midway is a retried network error.
   */
  readonly #attempt = async (input: Request, init: { [CALL]: CallState }): Promise<Response> => {
    const call = init[CALL];
    const attempt = ++call.attempts;
    const url = (call.url = input.url);
    const debug = this.#log.debug;
    const started = debug ? performance.now() : 0;
    try {
      let response = await this.#fetchOnce(url, call.headers, input, call);
      if (isRedirect(response)) response = await this.#followRedirects(response, input, call);
      call.text = await response.text();
      if (debug) {
        const { status } = response;
        const requestId = response.headers.get('x-request-id') ?? undefined;
        const durationMs = Math.round(performance.now() - started);
        debug(`[svc-sdk] ${input.method} ${url} → ${status} in ${durationMs} ms (attempt ${attempt}${requestId ? `, request id ${requestId}` : ''})`, {
          method: input.method,
          url,
          status,
          durationMs,
          attempt,
          requestId,
        });
      }
      return response;
    } catch (error) {
      if (debug) {
        const durationMs = Math.round(performance.now() - started);
        const reason = error instanceof Error ? error.message : String(error);
        debug(`[svc-sdk] ${input.method} ${url} failed in ${durationMs} ms (attempt ${attempt}): ${reason}`, {
          method: input.method,
          url,
          durationMs,
          attempt,
          error: reason,
        });
      }
      throw error;
    }
  };

  /** One fetch of ky's bodiless Request, with the body kept beside it. */
  #fetchOnce(url: string, headers: Record<string, string>, input: Request, call: CallState): Promise<Response> {
    // Looked up per call, not at construction: test tools (msw) replace the global fetch later.
    return (this.#fetch ?? globalThis.fetch)(url, {
      method: input.method,
      headers: this.#headersInit(headers),
      body: call.body,
      signal: input.signal,
      redirect: call.redirect,
      // fetch requires `duplex: 'half'` to send a stream (the spec's guard against full-duplex surprises).
      ...(call.body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
  }

  /** Node's fetch validates a plain object once; a custom fetch gets a Headers of its own, as it always has. */
  #headersInit(headers: Record<string, string>): HeadersInit {
    return this.#fetch ? new Headers(headers) : headers;
  }

  /** Follows a GET's redirects itself: the API key and custom headers never go to another origin. A write's redirect is an APIError. */
  async #followRedirects(response: Response, input: Request, call: CallState): Promise<Response> {
    const { method, signal } = input;
    let url = call.url;
    let headers = call.headers;
    for (let hops = 0; ; hops++) {
      if (response.type === 'opaqueredirect') {
        // A browser hides where a redirect goes; it drops the Authorization header across origins itself.
        if (call.follow) return (this.#fetch ?? globalThis.fetch)(url, { method, headers: this.#headersInit(headers), signal });
        throw redirectError(response, method, url, undefined);
      }
      const location = isRedirect(response) ? response.headers.get('location') : null;
      if (location === null) return response;
      void response.body?.cancel().catch(() => undefined);
      if (!call.follow || hops === MAX_REDIRECTS) throw redirectError(response, method, url, location);
      const next = new URL(location, url);
      if (next.origin !== new URL(url).origin) headers = this.#anonymousHeaders;
      url = next.href;
      response = await this.#fetchOnce(url, headers, input, call);
    }
  }
}

/**
 * Headers merged left to right. A header set to `undefined` (from JavaScript) is left out, or removes
 * the one before it, as ky's merge did: never sent as the text "undefined".
 */
function mergeHeaders(...sources: (Record<string, string> | undefined)[]): Record<string, string> {
  const merged: Record<string, string | undefined> = Object.assign({}, ...sources);
  for (const name in merged) if (merged[name] === undefined) delete merged[name];
  return merged as Record<string, string>;
}

/** A 3xx answer (or a browser's opaque stand-in for one): the only answers `#followRedirects` looks at. */
function isRedirect(response: Response): boolean {
  return (response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect';
}

/** The APIError of a redirect the core does not follow: a write's, or one past the hop limit. */
function redirectError(response: Response, method: string, url: string, location: string | undefined): APIError {
  const where = location === undefined ? 'a redirect (the browser hides where to)' : `a redirect to ${location}`;
  const why = method === 'GET' ? `more than ${MAX_REDIRECTS} redirects` : 'a write never follows a redirect, so it was not sent again: check baseUrl';
  return new APIError(
    { status: response.status, body: undefined, headers: response.headers, method, url },
    `${describeRequest(method, url)} failed with ${response.status}, ${where}: ${why}`,
  );
}

/** Maps any failure to the SDK's errors; ky's own are not kept as `cause`, as they hold the request headers. */
function toSvcError(error: unknown, call: CallState, method: string, url: string, timeout: number, signal: AbortSignal | undefined): SvcError {
  if (error instanceof SvcError) return error;
  const requestUrl = (error as { request?: Request } | undefined)?.request?.url ?? url;
  if (isHTTPError(error)) {
    const { response } = error;
    return APIError.generate({ status: response.status, body: errorBodyOf(call.text, response.headers), headers: response.headers, method, url: requestUrl });
  }
  if (signal?.aborted) {
    return new APIConnectionError(method, url, { cause: error, message: `[svc-sdk] ${describeRequest(method, url)}: request aborted by its signal` });
  }
  if (isTimeoutError(error)) return new APITimeoutError(method, requestUrl, timeout);
  if (isNetworkError(error)) {
    const cause = error.cause;
    if (call.redirect === 'error' && (cause as { cause?: { message?: unknown } } | undefined)?.cause?.message === 'unexpected redirect') {
      return new APIConnectionError(method, requestUrl, {
        cause,
        message: `${describeRequest(method, requestUrl)} failed: the service answered a redirect, which an upload never follows: check baseUrl`,
      });
    }
    return new APIConnectionError(method, requestUrl, { cause });
  }
  // A custom fetch's own error, or anything else: still an SvcError, with the original as `cause`.
  return new APIConnectionError(method, requestUrl, { cause: error });
}

/** The info-level line of a retry: which request, which attempt comes, and why. */
function retryLogger(info: NonNullable<CoreLog['info']>) {
  return ({ request, error, retryCount }: { request: Request; error: Error; retryCount: number }) => {
    const reason = isHTTPError(error)
      ? `it was answered ${error.response.status}`
      : isTimeoutError(error)
        ? 'it timed out'
        : `the connection failed (${error.cause instanceof Error ? error.cause.message : error.message})`;
    info(`[svc-sdk] ${request.method} ${request.url}: attempt ${retryCount + 1}, because ${reason}`, {
      method: request.method,
      url: request.url,
      attempt: retryCount + 1,
      reason,
    });
  };
}
