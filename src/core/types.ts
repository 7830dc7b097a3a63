/**
 * The types the core's modules share, in one module that imports none of them, so `http.ts`,
 * `attempt.ts`, `api-promise.ts`, `body.ts` and `pagination.ts` import one way: from here down.
 */
import type { ZodMiniType } from 'zod/mini';
import type { SvcError } from '../shared/svc-error.js';

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
  /** Hooks for this call only, run after the client's (see `ClientHooks`). */
  hooks?: ClientHooksOption | undefined;
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

/** One named parameter of a path template (`{room_id}` of `/rooms/{room_id}/search`). */
export interface PathParameter {
  /** Its name in the template: `room_id`. */
  readonly name: string;
  /** Checks the argument; its messages name the argument as the method's signature does (`roomId`). */
  readonly schema: ZodMiniType<string | number>;
}

/**
 * What an operation does, weakest first: `read` changes nothing; `write` creates or sends something
 * (a new deal, a ping delivery); `replace` sets a value that may already hold another (a
 * transaction's room link), which a tool may overwrite only with `allowDestructive`; `destroy`
 * removes what the user cannot get back (a webhook, its secret: the old one stops verifying at once).
 */
export type OperationEffect = 'read' | 'write' | 'replace' | 'destroy';

/**
 * One operation of the service, as data: what the core needs to check, send and read a call of it.
 * The table of them (src/operations.ts) is the single source: resources, hooks, telemetry and
 * tools read it, and nothing else restates a method or a path.
 */
export interface Operation<Result = unknown, Params extends ZodMiniType | undefined = ZodMiniType | undefined> {
  /** `rooms.create`: the name in messages, `CallInfo.operation` and span names. */
  readonly name: string;
  readonly method: HttpMethod;
  /** Relative to `/api/v1`, parameters named: `/rooms/{room_id}/search`. */
  readonly path: string;
  /** The template's parameters, in order. */
  readonly pathParameters: readonly PathParameter[];
  /** The template's text around its parameters (one more than them): the URL is built by joining, not by parsing. */
  readonly pathParts: readonly string[];
  /** Schema of the params argument: sent as the query of a GET, as the JSON body of any other method. */
  readonly params: Params;
  /** Schema of the unwrapped answer (of a list: of one page's items); without one the body comes as it is. */
  readonly response: ZodMiniType<Result> | undefined;
  /** Whether a failed attempt may be sent again: never a create (a deal must not be stored twice). */
  readonly mayRetry: boolean;
  /** What a call does to what the service stores or sends: the MCP server gates and annotates its tools by it. */
  readonly effect: OperationEffect;
  /** Whether a call changes what the service stores or sends: `effect` is not `'read'`. */
  readonly changesState: boolean;
  /** The operation answers nothing: an HTML page is not success, and a retried DELETE answered 404 is done. */
  readonly returnsNothing: boolean;
  /** A list: its answers are pages, followed by `next`. */
  readonly list: boolean;
  /** An upload: its body is a stream built by the resource, never sent again, never redirected (see attempt.ts). */
  readonly upload: boolean;
  /** The answer carries a secret (a webhook's signing secret): an error made from it keeps none of its string values. */
  readonly returnsSecret: boolean;
  /** A dry run of the operation (`deals.create` with `?ephemeral=true`): its query and answer; it writes nothing, so it may be retried. */
  readonly dryRun: { readonly query: Readonly<Record<string, string | boolean>>; readonly response: ZodMiniType } | undefined;
}

/** A request's body as the core sends it: its content, and the headers that describe it. */
export interface RequestContent {
  readonly content: RequestBody;
  /** Its content type and length. */
  readonly headers?: Record<string, string> | undefined;
}

/** A body built by the caller's side, with its own lifecycle: `settle` is told how the exchange ended, before the caller is. */
export interface OutgoingBody extends RequestContent {
  /** Called once the exchange is over, with its error if it failed (an upload closes its file). */
  readonly settle: (error: unknown) => unknown;
}

/** The arguments of one call of an operation, as a resource method hands them to the core. */
/** What a body being built knows of its call: a wait it makes counts against the call's timeout and signal. */
export interface BodyCall {
  readonly method: string;
  readonly url: string;
  readonly signal: AbortSignal | undefined;
  /** Milliseconds: the call's timeout, or the client's. */
  readonly timeout: number;
}

/** The arguments of one call of an operation. */
export interface CallArguments {
  /** The path parameters, in the template's order. */
  readonly path?: readonly unknown[] | undefined;
  /** The params argument (checked by the operation's `params` schema). */
  readonly params?: unknown;
  /**
   * An upload's body, built only once the other arguments are checked; told the call's method, URL,
   * signal and timeout, which bound any wait before the body can be sent (a stream's first chunk).
   */
  readonly body?: ((call: BodyCall) => Promise<OutgoingBody>) | undefined;
  /** Ask for the operation's dry run. */
  readonly dryRun?: boolean | undefined;
}

/** One call as the core sends it: its operation, and what the arguments made of it. */
export interface CoreRequest {
  readonly operation: Operation;
  /** The name in messages: the operation's, or `GET /rooms` for `client.request`. */
  readonly label: string;
  /** The URL without its query. */
  readonly url: string;
  readonly query?: Record<string, string | number | boolean | undefined> | undefined;
  /** The body: JSON text (`json` set), a raw body, or an upload's. */
  body?: RequestContent | undefined;
  readonly json?: boolean | undefined;
  /** Schema of the answer (the dry run's, for one). */
  readonly schema: ZodMiniType | undefined;
  /** No retries when false. */
  readonly mayRetry: boolean;
  /** A page of a list: a redirect to another origin is refused, so no other origin's items join the list. */
  readonly page?: true | undefined;
}

/** One finished HTTP exchange: the final response, its body as read within the attempt, and what was asked. */
export interface Exchange {
  /** The response; its body has been read already (into `bytes`). */
  readonly response: Response;
  /** The body's bytes exactly as fetch gave them (decompressed by fetch when the service compressed them). */
  readonly bytes: Uint8Array;
  /** The URL requested (a custom fetch may answer a Response without `url`). */
  readonly url: string;
  readonly request: CoreRequest;
  /** The call's hook sets: a list's later pages run them too. */
  readonly hookSets: HookSets | undefined;
}

// The public types of client hooks (their runner is hooks.ts).

/** What every hook of one call is told about it: the same object for all of them (a `WeakMap` key for state across hooks). */
export interface CallInfo {
  /** The operation, from the SDK's table of operations, like `rooms.create`; `request` for `client.request`. */
  readonly operation: string;
  readonly method: HttpMethod;
  /**
   * The URL path with its parameters named, like `/api/v1/rooms/{room_id}/documents`: the same for
   * every call of an operation (a metric's or a span's low-cardinality name). For `client.request`,
   * the path with each id (digits or a UUID) as `{id}`, without its query.
   */
  readonly urlTemplate: string;
}

/** What `beforeRequest` gets: one attempt about to be sent. */
export interface BeforeRequestContext {
  readonly call: CallInfo;
  /** 1 for the first attempt, 2 for the first retry. */
  readonly attempt: number;
  /** The URL requested, query included. */
  readonly url: string;
  /**
   * The headers to send (lowercase names): add, change or delete entries. A copy made for the hooks,
   * without any `authorization` header: the headers sent are built afresh from its own string
   * properties, and the client's API key added after, so no hook reads or replaces it.
   */
  readonly headers: Record<string, string>;
}

/** What `afterResponse` gets: the answer of a call that succeeded. */
export interface AfterResponseContext {
  readonly call: CallInfo;
  /** The response (status, headers); its body was read already, use the call's result. */
  readonly response: Response;
  /** Attempts made, 1 when the first one succeeded. */
  readonly attempts: number;
  /** Milliseconds from the first attempt's start to the answer. */
  readonly durationMs: number;
}

/** What `beforeRetry` gets: why an attempt failed and how long the client waited before the next. */
export interface BeforeRetryContext {
  readonly call: CallInfo;
  /** The attempt about to be sent: 2 for the first retry. */
  readonly attempt: number;
  /** Why the previous attempt failed: an `APIError` (its `status`), an `APITimeoutError` or an `APIConnectionError`. */
  readonly error: SvcError;
  /** Milliseconds waited since the failed attempt ended (the backoff, or the service's Retry-After). */
  readonly delayMs: number;
}

/** What `onError` gets: the error the call fails with. */
export interface ErrorContext {
  readonly call: CallInfo;
  readonly error: SvcError;
  /** Attempts made. */
  readonly attempts: number;
  /** Milliseconds from the first attempt's start to the failure. */
  readonly durationMs: number;
}

/**
 * One set of client hooks (`new Client({ hooks })`, or a call's `{ hooks }`): each is optional, may
 * be async, and runs in the order the sets were given, the client's before the call's. A hook that
 * throws fails the call with an `SvcError` whose `cause` is what it threw.
 *
 * @example
 * ```ts
 * import { Client, type ClientHooks } from 'svc-sdk';
 *
 * const gateway: ClientHooks = {
 *   beforeRequest: ({ headers }) => {
 *     headers['x-gateway-tenant'] = 'acme';
 *   },
 *   beforeRetry: ({ attempt, error, delayMs }) => {
 *     console.warn(`retry ${attempt} after ${delayMs} ms: ${error.name}`);
 *     return attempt <= 2; // false cancels the retry: the call fails with that error
 *   },
 * };
 * const client = new Client({ apiKey: 'vdr_example', baseUrl: 'https://api.example.com', hooks: gateway });
 * ```
 */
export interface ClientHooks {
  /**
   * Before each attempt: may add or change headers (never sees the API key).
   *
   * @param request The attempt about to be sent: its call, method, URL and headers to change.
   */
  beforeRequest?: ((request: BeforeRequestContext) => void | Promise<void>) | undefined;
  /**
   * Once the call succeeded: observes the answer.
   *
   * @param response The call and the answer it got: status, headers, request id, duration.
   */
  afterResponse?: ((response: AfterResponseContext) => void | Promise<void>) | undefined;
  /**
   * Before each retry: `false` cancels it, and the call fails with the last attempt's error.
   *
   * @param retry The call, the attempt about to be retried, the error it failed with and the delay before the retry.
   */
  beforeRetry?: ((retry: BeforeRetryContext) => boolean | void | Promise<boolean | void>) | undefined;
  /**
   * Once the call failed: observes its final `SvcError`.
   *
   * @param failure The call and the `SvcError` it failed with.
   */
  onError?: ((failure: ErrorContext) => void | Promise<void>) | undefined;
}

/** The name of a hook. */
export type HookName = 'beforeRequest' | 'afterResponse' | 'beforeRetry' | 'onError';

/** A `hooks` option as plain records (hook-sets.ts), and which hooks any of them has (a call skips what no set has). */
export interface HookSets {
  readonly sets: readonly Readonly<ClientHooks>[];
  readonly has: Readonly<Record<HookName, boolean>>;
}

/** The `hooks` option: one set, or several run in order. */
export type ClientHooksOption = ClientHooks | readonly ClientHooks[];

/** The escape hatch's request, as `client.request` hands it over. */
export interface RawCall {
  method: HttpMethod;
  /** Relative to `/api/v1`, starting with `/`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  json?: unknown;
  body?: RequestBody | undefined;
  idempotent?: boolean | undefined;
}
