import ky, { isHTTPError, isNetworkError, isTimeoutError, type Options } from 'ky';
import type { ZodMiniType } from 'zod/mini';
import { runtime } from '../shared/runtime.js';
import { APIPromise } from './api-promise.js';
import { attempt, type AttemptContext, type CallState } from './attempt.js';
import { NO_BYTES, dataOf, errorBodyOf } from './body.js';
import { APIConnectionError, APIError, APITimeoutError, SvcError, ValidationError, describeRequest } from './errors.js';
import { createCoreLog, loggedUrl, type CoreLog, type Logger, type LogLevel } from './logger.js';
// hooks: the runner and types of client hooks (core/hooks.ts)
import { CallHooks, hookSets, joinHookSets, urlTemplateOf, type ClientHooksOption, type HookSets } from './hooks.js';
import { DEFAULT_MAX_PAGES, PagePromise, readPages } from './pagination.js';
import { climbsOut } from './path.js';
import { checkSettings, parseParams } from './validate.js';
import { VERSION } from './version.js';
import type { CoreRequest, Exchange, ListOptions, RequestOptions, RequestSpec } from './types.js';

export type { CoreRequest, HttpMethod, RequestOptions, UploadProgress } from './types.js';

/** Checks one argument of a call against a schema, naming the call's operation in its ValidationError. */
type ParamParser = <P>(schema: ZodMiniType<P>, value: unknown) => P;

/** The default of `maxResponseBytes`: 64 MiB, far above any answer of the service, low enough to bound memory. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

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
  maxResponseBytes?: number | undefined;
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

/** The headers that name the SDK: a browser owns User-Agent (and a page's fetch may not set it); every other runtime lets the SDK name itself. */
function sdkHeaders(): Record<string, string> {
  return runtime.browser ? { 'x-svc-sdk-version': VERSION } : { 'user-agent': `svc-sdk/${VERSION}`, 'x-svc-sdk-version': VERSION };
}

/** The options of a call that passed none: shared, and known to need no check. */
const NO_OPTIONS: RequestOptions & ListOptions = Object.freeze({});

/** Control characters: a URL parser strips TAB, CR and LF silently (and would then resolve what they hid). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

/**
 * The thin HTTP core: the only module that knows ky. A call sends, retries, reads the body within
 * the attempt (attempt.ts), maps failures to the SDK's errors, and parses the answer when it is asked for.
 *
 * One request, in order: `call`/`list`/`request` → `#start` (arguments checked) → `#exchange`
 * (the call's hooks, when it has any: hooks.ts) → `#exchangeOnce` (the call's state, ky's options;
 * the call's final error is known here, and its afterResponse or onError hooks run) → `attempt`
 * (attempt.ts, once per attempt: send, redirects.ts, read) → ky decides on a retry (its `beforeRetry` hook).
 */
export class HttpCore {
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #maxResponseBytes: number;
  readonly #retry: NonNullable<Exclude<Options['retry'], number>>;
  readonly #prefix: string;
  /** The path of `#prefix` (`/api/v1`, or `/gw/api/v1` under a base URL with a path). */
  readonly #root: string;
  readonly #log: CoreLog;
  readonly #retryHooks: Options['hooks'];
  // The headers of every call, merged once: each call passes ky all its options in one object,
  // as ky would otherwise deep-merge an instance's defaults into every call.
  readonly #headers: Record<string, string>;
  readonly #jsonHeaders: Record<string, string>;
  /** What every attempt shares: the fetch, the headers of a cross-origin redirect, the log. */
  readonly #attempts: AttemptContext;
  // hooks: the client's hook sets, listed once; `undefined` when there are none
  readonly #hooks: HookSets | undefined;

  constructor(config: CoreConfig) {
    // The client has checked the settings and stripped the base URL's trailing slashes.
    this.#prefix = `${config.baseUrl}/api/v1`;
    this.#root = new URL(this.#prefix).pathname;
    this.#timeout = config.timeout;
    this.#maxRetries = config.maxRetries;
    this.#maxResponseBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#retry = retryPolicy(config.maxRetries);
    this.#log = createCoreLog(config.logLevel, config.logger, config.logEnv);
    this.#retryHooks = this.#log.info ? { beforeRetry: [retryLogger(this.#log.info)] } : undefined;
    const named = sdkHeaders();
    this.#headers = mergeHeaders(named, config.headers, { accept: 'application/json', authorization: `Bearer ${config.apiKey}` });
    this.#jsonHeaders = { ...this.#headers, 'content-type': 'application/json' };
    const custom = config.fetch;
    this.#attempts = {
      // Looked up per attempt, not at construction: test tools (msw) replace the global fetch later.
      fetch: custom ? () => custom : () => globalThis.fetch,
      headersInit: custom ? (headers) => new Headers(headers) : (headers) => headers,
      // A redirect to another origin carries neither the API key nor the caller's headers.
      anonymousHeaders: { ...named, accept: 'application/json' },
      log: this.#log,
    };
    this.#hooks = hookSets(config.hooks); // hooks:
  }

  /** @internal The client's log writers (guarded), for callbacks of the caller's that fail (upload progress). */
  get log(): CoreLog {
    return this.#log;
  }

  /** @internal The client's default timeout in ms, for waits outside an attempt (an upload's first chunk). */
  get timeout(): number {
    return this.#timeout;
  }

  /** @internal The full URL of a path under /api/v1. */
  urlOf(path: string): string {
    return this.#prefix + path;
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
        prefix: this.#prefix,
        maxPages,
        fetch: (url) => this.#exchange({ ...first.request, url, query: undefined }, settings),
      });
    const asPage = (spec: RequestSpec<Item[]>) => Object.assign(spec, { page: true as const });
    return new PagePromise<Item>(this.#start(operation, settings, (parse) => asPage(build(parse))), pages);
  }

  /**
   * The escape hatch's call (`client.request`). The path is checked as the URL parser resolves it,
   * not as written: a control character (which the parser strips, TAB, CR and LF included) or a
   * resolved path outside `/api/v1/` is a ValidationError, and nothing is sent.
   */
  request<T>(request: CoreRequest<T>, options?: RequestOptions): APIPromise<T> {
    return this.call(request.operation, options, () => {
      const problem = request.path === undefined ? undefined : this.#pathProblem(request.path);
      if (problem) throw new ValidationError(request.operation, [{ path: ['path'], message: problem }]);
      return request;
    });
  }

  /**
   * What is wrong with a path relative to `/api/v1`; `undefined` when nothing is. Judged on the URL
   * the parser resolves (the prefix is an absolute URL, so any path text parses), after refusing
   * the control characters the parser would strip; a `..` segment that stays inside is refused too,
   * as it makes the call another endpoint than the one written.
   */
  #pathProblem(path: string): string | undefined {
    if (CONTROL_CHARACTER.test(path)) return 'path must not contain control characters (tab, line break): remove them';
    const { pathname } = new URL(this.#prefix + path);
    if (!`${pathname}/`.startsWith(`${this.#root}/`)) return `path must stay under /api/v1, but it resolves to ${pathname}: remove its '..' segments`;
    if (climbsOut(path)) return "path must not have '..' segments: name the endpoint itself";
    return undefined;
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

  // hooks: with hook sets, the exchange runs with its call's CallHooks (beforeRequest, beforeRetry, afterResponse, onError); without, as before
  #exchange(request: CoreRequest<unknown>, options: RequestOptions): Promise<Exchange> {
    const sets = options.hooks === undefined ? this.#hooks : joinHookSets(this.#hooks, options.hooks);
    if (sets === undefined) return this.#exchangeOnce(request, options, undefined);
    const hooks = new CallHooks(sets, {
      operation: request.operation,
      method: request.method,
      urlTemplate: this.#root + urlTemplateOf(request.path ?? ''),
    });
    return this.#exchangeOnce(request, options, hooks);
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
      headers,
      redirect: request.redirect ?? 'manual',
      follow: method === 'GET',
      sameOrigin: request.page === true,
      maxResponseBytes: options.maxResponseBytes ?? this.#maxResponseBytes,
      attempts: 0,
      bytes: NO_BYTES,
      url,
    };
    const context = this.#attempts;
    const init: Options = {
      method,
      timeout,
      // With no retries the policy does not matter, and ky normalizes a number faster than a policy.
      retry: limit === 0 ? 0 : limit === this.#maxRetries ? this.#retry : { ...this.#retry, limit },
      // The call's state travels in this closure: ky calls it once per attempt with its bodiless Request.
      // hooks: beforeRequest runs around each attempt, on the call's headers (CallState.headers)
      fetch: (hooks ? hooks.aroundAttempt((input: Request) => attempt(input, call, context), call, limit > 0) : (input: Request) => attempt(input, call, context)) as NonNullable<Options['fetch']>,
    };
    if (request.query) init.searchParams = request.query;
    if (options.signal) init.signal = options.signal;
    if (this.#retryHooks && limit > 0) init.hooks = this.#retryHooks;
    if (hooks?.has.beforeRetry && limit > 0) {
      // hooks: beforeRetry hears ky's retry (after its wait) as an SvcError; `false` rethrows ky's own error, which ends
      // the retries as if the limit were reached. Given only to a call with retries: never a create (ky would merge
      // the hooks into its options for nothing).
      const beforeRetry = async ({ error }: { error: Error }) => {
        if (!(await hooks.beforeRetry(toSvcError(error, call, request, url, timeout, options.signal)))) throw error;
      };
      init.hooks = { beforeRetry: [...(this.#retryHooks?.beforeRetry ?? []), beforeRetry] };
    }

    try {
      const response = await ky(url, init);
      const exchange: Exchange = { response, bytes: call.bytes, url: call.url, request };
      // hooks: afterResponse, its failure through onError; returned, not awaited, so the catch below never sees it
      return hooks ? hooks.afterResponse(exchange) : exchange;
    } catch (error) {
      if (isHTTPError(error) && error.response.status === 404 && method === 'DELETE' && request.returnsNothing && call.attempts > 1) {
        // An earlier attempt deleted it and its answer was lost: the retry finding nothing is the success.
        const exchange: Exchange = { response: error.response, bytes: NO_BYTES, url: call.url, request };
        return hooks ? hooks.afterResponse(exchange) : exchange; // hooks:
      }
      // The call's final error is known here.
      const failure = toSvcError(error, call, request, url, timeout, options.signal);
      if (call.attempts > 1 && this.#log.warn) {
        // The error's name and status, not its message: that quotes the service's answer, and bodies are not logged.
        const { url: failedUrl = url, status } = failure as { url?: string; status?: number };
        const shown = loggedUrl(failedUrl);
        this.#log.warn(`[svc-sdk] ${method} ${shown} gave up after ${call.attempts} attempts: ${failure.name}${status ? ` ${status}` : ''}`, {
          method,
          url: shown,
          attempts: call.attempts,
          error: failure.name,
          status,
        });
      }
      if (hooks) return hooks.onError(failure); // hooks: rejects with the failure, or with the error of a hook that threw
      throw failure;
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

/** Maps any failure to the SDK's errors; ky's own are not kept as `cause`, as they hold the request headers. */
function toSvcError(error: unknown, call: CallState, request: CoreRequest<unknown>, url: string, timeout: number, signal: AbortSignal | undefined): SvcError {
  if (error instanceof SvcError) return error;
  const { method } = request;
  const requestUrl = (error as { request?: Request } | undefined)?.request?.url ?? url;
  if (isHTTPError(error)) {
    const { response } = error;
    return APIError.generate({
      status: response.status,
      body: errorBodyOf(call.bytes, response.headers),
      headers: response.headers,
      method,
      url: requestUrl,
      size: call.bytes.byteLength,
      secret: request.returnsSecret,
    });
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
    const shown = loggedUrl(request.url);
    info(`[svc-sdk] ${request.method} ${shown}: attempt ${retryCount + 1}, because ${reason}`, {
      method: request.method,
      url: shown,
      attempt: retryCount + 1,
      reason,
    });
  };
}
