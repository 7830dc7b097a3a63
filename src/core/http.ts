import ky, { isHTTPError, isNetworkError, isTimeoutError, type KyInstance, type Options } from 'ky';
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
  baseUrl: string;
  apiKey: string;
  timeout: number;
  maxRetries: number;
  fetch?: typeof globalThis.fetch | undefined;
  headers?: Record<string, string> | undefined;
}

const RETRYABLE_METHODS = ['get', 'put', 'patch', 'delete', 'head', 'options'];
const RETRYABLE_METHODS_WITH_POST = [...RETRYABLE_METHODS, 'post'];

/** 408, 429 and every 5xx are worth another try; other statuses would answer the same again. */
const RETRYABLE_STATUSES = [408, 429, ...Array.from({ length: 100 }, (_, offset) => 500 + offset)];

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
  readonly #ky: KyInstance;
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #prefix: string;

  constructor(config: CoreConfig) {
    this.#prefix = `${config.baseUrl.replace(/\/+$/, '')}/api/v1`;
    this.#timeout = config.timeout;
    this.#maxRetries = config.maxRetries;
    this.#ky = ky.create({
      prefix: this.#prefix,
      headers: { ...config.headers, accept: 'application/json', authorization: `Bearer ${config.apiKey}` },
      ...(config.fetch ? { fetch: config.fetch } : {}),
    });
  }

  /** Sends one request and returns its unwrapped, validated body. */
  async request<T>(request: CoreRequest<T>, options: RequestOptions = {}): Promise<T> {
    const method = request.method;
    const timeout = options.timeout ?? this.#timeout;
    const canRetry = method !== 'POST' || request.idempotent === true;
    const limit = canRetry ? (options.maxRetries ?? this.#maxRetries) : 0;
    const init: Options = { method, timeout, retry: retryPolicy(limit, request.idempotent === true) };
    if (request.query) init.searchParams = request.query;
    if (request.json !== undefined) init.json = request.json;
    if (request.body !== undefined) init.body = request.body;
    if (request.headers || options.headers) init.headers = { ...request.headers, ...options.headers };
    if (options.signal) init.signal = options.signal;
    if (request.redirect) init.redirect = request.redirect;
    // fetch requires `duplex: 'half'` to send a stream (the spec's guard against full-duplex surprises).
    if (request.body instanceof ReadableStream) (init as { duplex?: 'half' }).duplex = 'half';

    const response = await this.#send(request.path, init, timeout);
    const body = unwrapEnvelope(await readBody(response, request.operation), response, method);
    if (!request.schema) return body as T;
    const result = safeParse(request.schema, body);
    if (!result.success) throw new ResponseValidationError(request.operation, result.error.issues, body);
    return result.data;
  }

  async #send(path: string, init: Options, timeout: number): Promise<Response> {
    try {
      return await this.#ky(path.replace(/^\//, ''), init);
    } catch (error) {
      throw toSvcError(error, init, timeout, this.#prefix + path);
    }
  }
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

/** `{ success: true, data }` → `data`; `{ success: false }` → APIError; anything else as it came. */
function unwrapEnvelope(body: unknown, response: Response, method: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const record = body as { success?: unknown; data?: unknown };
  if (typeof record.success !== 'boolean') return body;
  if (record.success) return 'data' in record ? record.data : body;
  throw APIError.generate({ status: response.status, body, headers: response.headers, method, url: response.url });
}
