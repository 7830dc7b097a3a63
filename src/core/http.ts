import ky, { isHTTPError, isTimeoutError, type Options } from 'ky';
import { runtime } from '../shared/runtime.js';
import { APIPromise } from './api-promise.js';
import { attempt, failureOf, logGaveUp, type AttemptContext, type CallState } from './attempt.js';
import { backoffMs, decideRetry } from './retry-decision.js';
import type { RetryBudget } from './retry-budget.js';
import type { Governor } from './governor.js';
import { loadTransport, type Transport, type TransportSettings } from './transport.js';
import { NO_BYTES, dataOf } from './body.js';
import { ValidationError } from './errors.js';
import { joinHookSets, readHookSets, type HookSets } from './hook-sets.js';
import { CallHooks } from './hooks.js';
import { createCoreLog, loggedUrl, type CoreLog, type Logger, type LogLevel } from './logger.js';
import { PagePromise, readPages } from './pagination.js';
import { rawRequest } from './raw-request.js';
import { checkSettings, parseParams } from './validate.js';
import { VERSION } from './version.js';
import type { BodyCall, CallArguments, CoreRequest, Exchange, ListOptions, Operation, OutgoingBody, RawCall, RequestOptions } from './types.js';
import { DEFAULT_MAX_PAGES, DEFAULT_MAX_RESPONSE_BYTES } from '../shared/limits.js';

export type { CallArguments, CoreRequest, HttpMethod, Operation, RawCall, RequestOptions, UploadProgress } from './types.js';


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
  /** The client's hook sets, as the client read them (hook-sets.ts). */
  hooks?: HookSets | undefined;
  /** The client's retry budget (its own or a shared one); `undefined` for none. */
  retryBudget?: RetryBudget | undefined;
  /** The client's limits on what it sends; `undefined` when it sets none (then nothing waits). */
  governor?: Governor | undefined;
  /** The client's proxy, trust and dispatcher settings; `undefined` for the runtime's fetch as it is. */
  transport?: TransportSettings | undefined;
}

/** ky retries a request only when `limit` allows it: the core sets 0 for a request that may not be replayed. */
const EVERY_METHOD = ['get', 'put', 'patch', 'delete', 'head', 'options', 'post'];

/**
 * The `methods` of a call's retry policy: its own method alone. ky copies and lower-cases the list
 * twice per call (its options, then each attempt), and a call only ever asks about its own method; one
 * outside the list keeps the whole list, so it is still not retried.
 */
const METHODS_OF: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(EVERY_METHOD.map((method) => [method.toUpperCase(), Object.freeze([method])])),
);

/**
 * ky's retry settings a client's calls share; each call that may retry adds its own `methods`,
 * `shouldRetry` (retry-decision.ts: the rule, the budget, the service's headers), `delay` and
 * `jitter`. ky's own status, Retry-After and timeout checks never run: `shouldRetry` always answers
 * true or false (so `retryOnTimeout`, read only after a `shouldRetry` without an answer, is not set).
 */
const RETRY_BASE = Object.freeze({
  // The cap is the service's longest honoured Retry-After; the backoff caps itself at 8 s (retry-decision.ts).
  backoffLimit: 60_000,
});

/** The headers that name the SDK: a browser owns User-Agent (and a page's fetch may not set it); every other runtime lets the SDK name itself. */
function sdkHeaders(): Record<string, string> {
  return runtime.browser ? { 'x-svc-sdk-version': VERSION } : { 'user-agent': `svc-sdk/${VERSION}`, 'x-svc-sdk-version': VERSION };
}

/** The options of a call that passed none: shared, and known to need no check. */
const NO_OPTIONS: RequestOptions & ListOptions = Object.freeze({});

/** The arguments of an operation that takes none (`webhooks.list()`). */
const NO_ARGUMENTS: CallArguments = Object.freeze({});

/**
 * The thin HTTP core: the only module that calls ky. A call of an operation (an entry of the table in
 * src/operations.ts) goes, in order:
 *   `call`/`list` → `#start`: options and arguments checked (validate.ts), the URL built from the
 *                   entry's template (`#requestOf`); a bad argument rejects, and nothing is sent
 *   `#exchange`:   the call's state, its hooks (hooks.ts, when the client or the call has some) and ky's options
 *   → ky → `attempt` (attempt.ts, once per attempt: beforeRequest hooks, send, redirects.ts, read)
 *   → ky decides on a retry (beforeRetry hooks) → back in `#exchange`: the answer (afterResponse) or
 *   the call's final error (`failureOf`, the give-up log line, onError)
 *   → the APIPromise parses the answer when asked (body.ts: one parser for answers and pages).
 */
export class HttpCore {
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #maxResponseBytes: number;
  readonly #budget: RetryBudget | undefined;
  readonly #prefix: string;
  /** The path of `#prefix` (`/api/v1`, or `/gw/api/v1` under a base URL with a path). */
  readonly #root: string;
  readonly #log: CoreLog;
  readonly #retryHooks: Options['hooks'];
  // The headers of every call, merged once: each call passes ky all its options in one object,
  // as ky would otherwise deep-merge an instance's defaults into every call.
  readonly #headers: Record<string, string>;
  readonly #jsonHeaders: Record<string, string>;
  /** What every attempt shares: the fetch, the headers of a cross-origin redirect, the key, the log. */
  readonly #attempts: AttemptContext;
  /** The client's hook sets; `undefined` when there are none. */
  readonly #hookSets: HookSets | undefined;

  constructor(config: CoreConfig) {
    // The client has checked the settings and stripped the base URL's trailing slashes.
    this.#prefix = `${config.baseUrl}/api/v1`;
    this.#root = new URL(this.#prefix).pathname;
    this.#timeout = config.timeout;
    this.#maxRetries = config.maxRetries;
    this.#maxResponseBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#budget = config.retryBudget;
    this.#log = createCoreLog(config.logLevel, config.logger, config.logEnv);
    this.#retryHooks = this.#log.info ? { beforeRetry: [retryLogger(this.#log.info)] } : undefined;
    const named = sdkHeaders();
    const authorization = `Bearer ${config.apiKey}`;
    this.#headers = mergeHeaders(named, config.headers, { accept: 'application/json', authorization });
    this.#jsonHeaders = { ...this.#headers, 'content-type': 'application/json' };
    const custom = config.fetch;
    this.#attempts = {
      // Looked up per attempt, not at construction: test tools (msw) replace the global fetch later.
      fetch: custom ? () => custom : () => globalThis.fetch,
      headersInit: custom ? (headers) => new Headers(headers) : (headers) => headers,
      // A redirect to another origin carries neither the API key nor the caller's headers.
      anonymousHeaders: { ...named, accept: 'application/json' },
      authorization,
      log: this.#log,
      governor: config.governor,
      transport: transportLoader(config.transport),
    };
    this.#hookSets = config.hooks;
  }

  /** @internal The client's log writers (guarded), for callbacks of the caller's that fail (upload progress). */
  get log(): CoreLog {
    return this.#log;
  }

  /** @internal The full URL of a path under /api/v1 (a folder upload's manifest names the service by its origin). */
  urlOf(path: string): string {
    return this.#prefix + path;
  }

  /** Starts one call of `operation`; a bad argument rejects the promise before anything is sent. */
  call<R>(operation: Operation<R>, args: CallArguments | undefined, options: RequestOptions | undefined): APIPromise<R> {
    return new APIPromise<R>(this.#start(operation, args ?? NO_ARGUMENTS, options ?? NO_OPTIONS, false), dataOf);
  }

  /** Starts a call of a list operation: its promise reads every page, and it iterates them lazily with `for await`. */
  list<Item>(operation: Operation<Item[]>, args: CallArguments | undefined, options: ListOptions | undefined): PagePromise<Item> {
    const settings = options ?? NO_OPTIONS;
    const maxPages = settings.maxPages ?? DEFAULT_MAX_PAGES;
    // Every page is read with the first page's request (schema, headers), options (auth, retries, timeout) and hooks.
    const pages = (first: Exchange) =>
      readPages<Item>(first, {
        prefix: this.#prefix,
        maxPages,
        fetch: (url) => this.#exchange({ ...first.request, url, query: undefined }, settings, first.hookSets),
      });
    return new PagePromise<Item>(this.#start(operation, args ?? NO_ARGUMENTS, settings, true), pages);
  }

  /**
   * The escape hatch's call (`client.request`): its checks and its entry (raw-request.ts). A bad path
   * or option is a ValidationError the promise rejects with, and nothing is sent.
   */
  request<T>(raw: RawCall, options: RequestOptions | undefined): APIPromise<T> {
    const settings = options ?? NO_OPTIONS;
    let started: Promise<Exchange>;
    // Checked at once, as `call` checks its arguments: a bad path or option rejects, and no turn of the event loop is spent first.
    try {
      const request = rawRequest(raw, options, this.#prefix, this.#root);
      started = this.#exchange(request, settings, this.#callHookSets(request.label, settings));
    } catch (error) {
      started = Promise.reject(error);
    }
    return new APIPromise<T>(started, dataOf);
  }

  /** The client's hook sets and a call's own (none without a `hooks` option), read (and checked) when the call is made. */
  #callHookSets(label: string, options: RequestOptions): HookSets | undefined {
    // Most calls set no hooks of their own: the client's sets as they are (and no detour through hook-sets.ts).
    if (options.hooks === undefined) return this.#hookSets;
    const { hookSets, issues } = readHookSets(options.hooks);
    if (issues.length) throw new ValidationError(label, issues);
    return joinHookSets(this.#hookSets, hookSets);
  }

  #start(operation: Operation, args: CallArguments, options: RequestOptions, page: boolean): Promise<Exchange> {
    try {
      // A call that passed no options has none to check (and no detour through validate.ts).
      if (options !== NO_OPTIONS) checkSettings(operation.name, options);
      const request = this.#requestOf(operation, args, page);
      const hookSets = this.#callHookSets(operation.name, options);
      return args.body ? this.#sendBuilt(request, args.body, options, hookSets) : this.#exchange(request, options, hookSets);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The request of one call: each argument checked by the entry's schemas (a ValidationError names
   * it, and nothing is sent), the URL built from the entry's template with every path parameter
   * encoded, the params sent as the query of a GET or the JSON body of any other method.
   */
  #requestOf(operation: Operation, args: CallArguments, page: boolean): CoreRequest {
    const label = operation.name;
    const { pathParameters, pathParts } = operation;
    let url = this.#prefix + pathParts[0]!;
    for (let index = 0; index < pathParameters.length; index++) {
      const value = parseParams(label, pathParameters[index]!.schema, args.path?.[index]);
      url += encodeURIComponent(String(value)) + pathParts[index + 1]!;
    }
    const params = operation.params ? parseParams(label, operation.params, args.params) : undefined;
    const dryRun = args.dryRun === true ? operation.dryRun : undefined;
    const inQuery = operation.method === 'GET';
    const hasJson = !inQuery && params !== undefined;
    return {
      operation,
      label,
      url,
      query: (inQuery ? params : dryRun?.query) as CoreRequest['query'],
      body: hasJson ? { content: JSON.stringify(params) } : undefined,
      json: hasJson,
      schema: dryRun ? dryRun.response : operation.response,
      // A dry run writes nothing, so it is safe to send again.
      mayRetry: dryRun !== undefined || operation.mayRetry,
      page: page || undefined,
    };
  }

  /**
   * Sends a request whose body the caller builds (an upload) once the arguments are checked, and
   * tells the body how the exchange ended before the caller hears of it: on failure an upload stops
   * reading its file and closes it (Node's fetch keeps draining a stream after the connection is gone).
   */
  async #sendBuilt(request: CoreRequest, build: (call: BodyCall) => Promise<OutgoingBody>, options: RequestOptions, hookSets: HookSets | undefined): Promise<Exchange> {
    const body = await build({ method: request.operation.method, url: request.url, signal: options.signal, timeout: options.timeout ?? this.#timeout });
    request.body = body;
    let exchange: Exchange;
    try {
      exchange = await this.#exchange(request, options, hookSets);
    } catch (error) {
      await body.settle(error);
      throw error;
    }
    await body.settle(undefined);
    return exchange;
  }

  /** Sends one request through ky (retries, timeout per attempt) and returns its exchange, or throws an SvcError. */
  async #exchange(request: CoreRequest, options: RequestOptions, hookSets: HookSets | undefined): Promise<Exchange> {
    const { method } = request.operation;
    const timeout = options.timeout ?? this.#timeout;
    // The one guard against sending a create twice: a request that may not be replayed gets no retries.
    const limit = request.mayRetry ? (options.maxRetries ?? this.#maxRetries) : 0;
    const { body } = request;
    let headers = request.json ? this.#jsonHeaders : this.#headers;
    if (body?.headers || options.headers) headers = mergeHeaders(headers, body?.headers, options.headers);
    let hooks: CallHooks | undefined;
    if (hookSets) {
      const info = { operation: request.operation.name, method, urlTemplate: this.#root + request.operation.path };
      hooks = new CallHooks(hookSets, info, { timeout, signal: options.signal, url: request.url });
    }
    const call: CallState = {
      request,
      content: body?.content,
      headers,
      maxResponseBytes: options.maxResponseBytes ?? this.#maxResponseBytes,
      hooks,
      attempts: 0,
      retryCost: undefined,
      retryDelayMs: undefined,
      notRetried: undefined,
      queued: undefined,
      queuedMs: undefined,
      route: undefined,
      started: 0,
      ended: 0,
      reading: false,
      bytes: NO_BYTES,
      url: request.url,
    };
    const context = this.#attempts;
    const init: Options = {
      method,
      timeout,
      // With no retries the policy does not matter, and ky normalizes a number faster than a policy.
      retry: limit === 0 ? 0 : this.#retryOf(call, limit),
      // The call's state travels in this closure: ky calls it once per attempt with its bodiless Request.
      fetch: ((input: Request) => attempt(input, call, context)) as NonNullable<Options['fetch']>,
    };
    // Set only when there is one: ky treats an option set to undefined as not set, but copies its options
    // once per key as it merges them (and takes a signal key as the caller's, to combine).
    if (request.query !== undefined) init.searchParams = request.query;
    if (options.signal !== undefined) init.signal = options.signal;
    // Retry hooks go to a call that may retry only: ky would merge them into its options for nothing.
    if (limit > 0) init.hooks = hooks?.has.beforeRetry ? this.#withBeforeRetry(call, hooks, timeout, options.signal) : this.#retryHooks;

    let response: Response;
    try {
      response = await ky(request.url, init);
    } catch (error) {
      if (isHTTPError(error) && error.response.status === 404 && method === 'DELETE' && request.operation.returnsNothing && call.attempts > 1) {
        // An earlier attempt deleted it and its answer was lost: the retry finding nothing is the success.
        response = error.response;
        call.bytes = NO_BYTES;
      } else {
        const failure = await failureOf(error, call, timeout, options.signal);
        // At `info`, not `warn`: the caller is handed this failure, so the default level prints nothing (as openai and stripe do).
        if (call.attempts > 1 && this.#log.info) logGaveUp(call, failure, this.#log.info);
        if (hooks?.has.onError) return hooks.onError({ error: failure, attempts: call.attempts, durationMs: elapsed(call) });
        throw failure;
      }
    }
    // A success gives the budget back its last retry's cost, or 1 (AWS standard mode's refill).
    this.#budget?.succeeded(call.retryCost);
    if (hooks?.has.afterResponse) {
      const ran = hooks.afterResponse({ response, attempts: call.attempts, durationMs: elapsed(call) });
      if (ran) await ran; // hooks that return no promise cost no turn of the event loop
    }
    return { response, bytes: call.bytes, url: call.url, request, hookSets };
  }

  /** ky's retry settings for one call: its limit, and the decision and delay read from the call's state (retry-decision.ts). */
  #retryOf(call: CallState, limit: number): NonNullable<Exclude<Options['retry'], number>> {
    const budget = this.#budget;
    const governor = this.#attempts.governor;
    return {
      ...RETRY_BASE,
      limit,
      methods: (METHODS_OF[call.request.operation.method] ?? EVERY_METHOD) as string[],
      shouldRetry: ({ error }) => decideRetry(error, call, budget, governor),
      delay: (attemptCount) => call.retryDelayMs ?? backoffMs(attemptCount),
      // The service's wait is kept as it asked; the backoff is jittered in full (0 to its value), as ky's `jitter: true` was.
      jitter: (delay) => (call.retryDelayMs === undefined ? Math.random() * delay : delay),
    };
  }

  /**
   * ky's retry hooks with the call's `beforeRetry`: it hears the failed attempt as an SvcError, after
   * ky's wait; `false` rethrows ky's own error, which ends the retries as if the limit were reached.
   */
  #withBeforeRetry(call: CallState, hooks: CallHooks, timeout: number, signal: AbortSignal | undefined): Options['hooks'] {
    const beforeRetry = async ({ error }: { error: Error }) => {
      const delayMs = Math.max(0, Math.round(performance.now() - call.ended));
      const retried = await hooks.beforeRetry({ attempt: call.attempts + 1, error: await failureOf(error, call, timeout, signal), delayMs });
      if (!retried) throw error;
    };
    return { beforeRetry: [...(this.#retryHooks?.beforeRetry ?? []), beforeRetry] };
  }
}

/**
 * The transport of a client with transport settings, made with its first attempt (transport-node.ts,
 * and undici with it, loaded then) and shared by every later one; `undefined` without settings.
 */
function transportLoader(settings: TransportSettings | undefined): (() => Promise<Transport>) | undefined {
  if (settings === undefined) return undefined;
  let made: Promise<Transport> | undefined;
  return () => (made ??= loadTransport().then(({ createTransport }) => createTransport(settings)));
}

/** Milliseconds since the call's first attempt started; 0 when none did. */
function elapsed(call: CallState): number {
  return call.attempts === 0 ? 0 : performance.now() - call.started;
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
