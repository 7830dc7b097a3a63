import ky, { isHTTPError, isNetworkError, isTimeoutError, type Options } from 'ky';
import { safeParse, type ZodMiniType } from 'zod/mini';
import { APIConnectionError, APIError, APITimeoutError, ResponseValidationError } from './errors.js';

/** Options every method takes as its last argument. */
export interface RequestOptions {
  /** Aborts the request (and any pending retry). */
  signal?: AbortSignal;
  /** Milliseconds to wait for each attempt's response; overrides the client's `timeout`. */
  timeout?: number;
  /** Retries for this call; overrides the client's `maxRetries`. Non-idempotent POSTs never retry. */
  maxRetries?: number;
  /** Extra headers for this call only. */
  headers?: Record<string, string>;
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
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  json?: unknown;
  body?: RequestBody | undefined;
  headers?: Record<string, string> | undefined;
  /** Schema of the unwrapped response; without one the body is returned as it came. */
  schema?: ZodMiniType<T> | undefined;
  /**
   * The answer is a list that may come as a `{ results: [...] }` page: the results are the answer.
   * (Unwrapped here rather than by a zod union and transform, which cost 0.7 kB in a bundle.)
   */
  page?: true;
  /** Name used in error messages, like `rooms.create`. */
  operation: string;
  /** Marks a POST as safe to send again (a dry run); GET, PUT, PATCH and DELETE are already. */
  idempotent?: boolean;
  /**
   * `'error'` for uploads: a redirect answer fails the call instead of being followed, because
   * Node's fetch keeps every chunk of a streamed body while it may have to replay it after a
   * 307/308 (nodejs/undici#4058); `'manual'` keeps them too (measured: 355 MB for 256 MiB).
   */
  redirect?: 'error' | undefined;
}

/** A request body as fetch takes it (spelled without the DOM's `BodyInit`, for Node-only type checks). */
export type RequestBody = NonNullable<RequestInit['body']>;

/** Settings of the core, resolved once by the client. */
export interface CoreConfig {
  /** Without trailing slashes. */
  baseUrl: string;
  apiKey: string;
  timeout: number;
  maxRetries: number;
  fetch?: typeof globalThis.fetch | undefined;
  headers?: Record<string, string> | undefined;
}

const RETRYABLE_METHODS = ['get', 'put', 'patch', 'delete', 'head', 'options'];
const RETRYABLE_METHODS_WITH_POST = [...RETRYABLE_METHODS, 'post'];

/**
 * 408, 429 and the common 5xx; `retryOtherServerErrors` adds the rest of 5xx. The list is short
 * because ky copies it twice per call, retried or not (a list of every 5xx cost 2 % of a loopback call).
 */
const RETRYABLE_STATUSES = [408, 429, 500, 502, 503, 504];

/** Every other 5xx is retried too (with backoff: only 429 and 503 carry a Retry-After worth honouring). */
const retryOtherServerErrors: NonNullable<Exclude<Options['retry'], number>>['shouldRetry'] = ({ error }) =>
  isHTTPError(error) && error.response.status >= 500 && !RETRYABLE_STATUSES.includes(error.response.status) ? true : undefined;

const retryPolicies = new Map<string, NonNullable<Options['retry']>>();

/** ky's retry settings for a call, built once per (limit, POST allowed) and reused: they are on the hot path. */
function retryPolicy(limit: number, allowPost: boolean): NonNullable<Options['retry']> {
  const key = `${limit}:${allowPost}`;
  let policy = retryPolicies.get(key);
  if (!policy) {
    policy = {
      limit,
      methods: allowPost ? RETRYABLE_METHODS_WITH_POST : RETRYABLE_METHODS,
      statusCodes: RETRYABLE_STATUSES,
      afterStatusCodes: [429, 503], // these honour Retry-After (no jitter then: the server set the time)
      shouldRetry: retryOtherServerErrors,
      retryOnTimeout: true,
      jitter: true,
      backoffLimit: 8_000,
      maxRetryAfter: 60_000,
    };
    retryPolicies.set(key, policy);
  }
  return policy;
}

/**
 * The thin HTTP core: the only module that knows ky. One `request()` sends, retries, maps
 * failures to the SDK's errors, unwraps the `{ success, data }` envelope and checks the result.
 */
export class HttpCore {
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #prefix: string;
  readonly #fetch: NonNullable<Options['fetch']>;
  // The headers of every call, merged once: each call passes ky all its options in one object,
  // as ky would otherwise deep-merge an instance's defaults into every call.
  readonly #headers: Record<string, string>;
  readonly #jsonHeaders: Record<string, string>;

  constructor(config: CoreConfig) {
    // The client strips the base URL's trailing slashes (in linear time) before it gets here.
    this.#prefix = `${config.baseUrl}/api/v1`;
    this.#timeout = config.timeout;
    this.#maxRetries = config.maxRetries;
    this.#fetch = fetchWithBodyBeside(config.fetch);
    this.#headers = { ...config.headers, accept: 'application/json', authorization: `Bearer ${config.apiKey}` };
    this.#jsonHeaders = { ...this.#headers, 'content-type': 'application/json' };
  }

  /** Sends one request and returns its unwrapped, validated body. */
  async request<T>(request: CoreRequest<T>, options: RequestOptions = {}): Promise<T> {
    const method = request.method;
    const timeout = options.timeout ?? this.#timeout;
    const canRetry = method !== 'POST' || request.idempotent === true;
    const limit = canRetry ? (options.maxRetries ?? this.#maxRetries) : 0;
    const hasJson = request.json !== undefined;
    let headers = hasJson ? this.#jsonHeaders : this.#headers;
    if (request.headers || options.headers) headers = { ...headers, ...request.headers, ...options.headers };
    const init: Options & { [BODY]?: RequestBody } = {
      method,
      headers,
      timeout,
      // With no retries the policy does not matter, and ky normalizes a number faster than a policy.
      retry: limit === 0 ? 0 : retryPolicy(limit, request.idempotent === true),
      fetch: this.#fetch,
    };
    if (request.query) init.searchParams = request.query;
    if (hasJson) init[BODY] = JSON.stringify(request.json);
    if (request.body !== undefined) init[BODY] = request.body;
    if (options.signal) init.signal = options.signal;
    if (request.redirect) init.redirect = request.redirect;

    const response = await this.#send(request.path, init, timeout);
    let body = unwrapEnvelope(await readBody(response, request.operation), response, method);
    if (request.page) body = resultsOf(body);
    if (!request.schema) return body as T;
    const result = safeParse(request.schema, body);
    if (!result.success) throw new ResponseValidationError(request.operation, result.error.issues, body);
    return result.data;
  }

  async #send(path: string, init: Options, timeout: number): Promise<Response> {
    try {
      return await ky(this.#prefix + path, init);
    } catch (error) {
      throw toSvcError(error, init, timeout, this.#prefix + path);
    }
  }
}

/**
 * The ky option that carries a request's body past ky to the fetch below: ky forwards the options it
 * does not know to its `fetch`, and builds its `Request` without a body.
 */
const BODY = 'svcBody';

/**
 * ky's `fetch`: sends ky's bodiless `Request` as a URL and an init, with the body kept beside it.
 * Handing fetch a `Request` that has a body makes undici pipe the body through a `TransformStream`
 * into a second `Request` for every call: 0.15× of a loopback POST (BENCHMARKS.md, "Per-request
 * overhead"); and ky would clone a body it may have to resend, which a string does not need.
 */
function fetchWithBodyBeside(custom: typeof globalThis.fetch | undefined) {
  // ky calls its fetch with the Request it built; the wider type is what ky's option declares.
  return (input: Request | string | URL, init?: RequestInit & { [BODY]?: RequestBody }): Promise<Response> => {
    const request = input as Request;
    const body = init?.[BODY];
    // Looked up per call, not at construction: test tools (msw) replace the global fetch later.
    return (custom ?? globalThis.fetch)(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      signal: request.signal,
      redirect: request.redirect,
      // fetch requires `duplex: 'half'` to send a stream (the spec's guard against full-duplex surprises).
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
  };
}

/** Maps ky's failures to the SDK's; ky's own errors are not kept as `cause`, as they hold the request headers. */
function toSvcError(error: unknown, init: Options, timeout: number, url: string): unknown {
  if (isHTTPError(error)) {
    const { response, request } = error;
    return APIError.generate({
      status: response.status,
      body: error.data,
      headers: response.headers,
      method: request.method,
      url: request.url,
    });
  }
  if (isTimeoutError(error)) return new APITimeoutError(error.request.method, error.request.url, timeout);
  if (isNetworkError(error)) return new APIConnectionError(error.request.method, error.request.url, { cause: error.cause });
  if (init.signal?.aborted && error === init.signal.reason) {
    return new APIConnectionError(String(init.method), url, { cause: error, message: `[svc-sdk] request aborted by its signal` });
  }
  return error;
}

async function readBody(response: Response, operation: string): Promise<unknown> {
  const text = await response.text();
  if (text === '' || !(response.headers.get('content-type') ?? '').includes('json')) return text || undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ResponseValidationError(operation, [{ path: [], message: 'the body is not valid JSON' }], text);
  }
}

/** A `{ results: [...] }` page's results; anything else as it came (the list's schema then says what is wrong). */
function resultsOf(body: unknown): unknown {
  const results = (body as { results?: unknown } | null | undefined)?.results;
  return Array.isArray(results) ? results : body;
}

/** `{ success: true, data }` → `data`; `{ success: false }` → APIError; anything else as it came. */
function unwrapEnvelope(body: unknown, response: Response, method: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const record = body as { success?: unknown; data?: unknown };
  if (typeof record.success !== 'boolean') return body;
  if (record.success) return 'data' in record ? record.data : body;
  throw APIError.generate({ status: response.status, body, headers: response.headers, method, url: response.url });
}
