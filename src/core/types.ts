/**
 * The types the core's modules share, in one module that imports none of them, so `http.ts`,
 * `attempt.ts`, `api-promise.ts`, `body.ts` and `pagination.ts` import one way: from here down.
 */
import type { ZodMiniType } from 'zod/mini';

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
  /** Bytes an answer may have at most (each page of a list); overrides the client's `maxResponseBytes`. */
  maxResponseBytes?: number | undefined;
}

/** Options of a list method: those of every call, and a bound on the pages read. */
export interface ListOptions extends RequestOptions {
  /** Pages read at most before the call fails (a service whose `next` never ends). Default 1 000. */
  maxPages?: number | undefined;
}

/** Upload progress: bytes sent so far, and the total when it is known. */
export interface UploadProgress {
  loaded: number;
  total: number | undefined;
}

/** HTTP methods the service uses. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request body as fetch takes it (spelled without the DOM's `BodyInit`, for Node-only type checks). */
export type RequestBody = NonNullable<RequestInit['body']>;

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
  /** A page of a list: a redirect to another origin is refused, so no other origin's items join the list. */
  page?: true | undefined;
  /** The operation answers nothing: an HTML page is not success, and a retried DELETE answered 404 is done. */
  returnsNothing?: true | undefined;
  /** The answer carries a secret (a webhook's signing secret): an error made from it keeps none of its string values. */
  returnsSecret?: true | undefined;
  /** Called when the exchange is over, with its error if it failed, before the caller hears of it (uploads close their input). */
  settle?: ((error: unknown) => unknown) | undefined;
}

/** A request as a resource method describes it: the operation is named once, by the call. */
export type RequestSpec<T> = Omit<CoreRequest<T>, 'operation'>;

/** One finished HTTP exchange: the final response, its body as read within the attempt, and what was asked. */
export interface Exchange {
  /** The response; its body has been read already (into `bytes`). */
  readonly response: Response;
  /** The body's bytes exactly as fetch gave them (decompressed by fetch when the service compressed them). */
  readonly bytes: Uint8Array;
  /** The URL requested (a custom fetch may answer a Response without `url`). */
  readonly url: string;
  readonly request: CoreRequest<unknown>;
}
