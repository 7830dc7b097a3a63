// Client hooks: their public types, the check of the `hooks` option, and one call's runner.
//
// Everything here is reached from a handful of `// hooks:` call sites in http.ts, client.ts and
// validate.ts; a client without hooks never builds a `CallHooks` and pays one `undefined` check per
// call. When the hooks run:
//   beforeRequest  before each attempt is sent (headers shown with the API key redacted)
//   beforeRetry    after a failed attempt, when ky is about to send the next one (false cancels it)
//   afterResponse  once, when the call succeeded (each page of a list is a call of its own)
//   onError        once, when the call failed, with the final SvcError
// The hook sets run in order (the client's, then the call's). Their return values are ignored but
// for beforeRetry's `false`, and that can only stop retries: a create is given no retries at all
// (http.ts), so no hook can make it send twice.
import { SvcError } from '../shared/svc-error.js';
import type { Issue } from './errors.js';
import type { HttpMethod } from './http.js';

/** What every hook of one call is told about it: the same object for all of them (a `WeakMap` key for state across hooks). */
export interface CallInfo {
  /** The operation, like `rooms.create` (or `GET /rooms` for `client.request`). */
  readonly operation: string;
  readonly method: HttpMethod;
  /**
   * The URL path with its parameters named, like `/api/v1/rooms/{room_id}/documents`: the same for
   * every call of an operation (a metric's or a span's low-cardinality name).
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
   * The headers to send (lowercase names): add, change or delete entries. `authorization` reads
   * `Bearer [redacted]`; whatever a hook does to it, the client's API key is sent.
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
  /** Before each attempt: may add or change headers (never sees the API key). */
  beforeRequest?: ((request: BeforeRequestContext) => void | Promise<void>) | undefined;
  /** Once the call succeeded: observes the answer. */
  afterResponse?: ((response: AfterResponseContext) => void | Promise<void>) | undefined;
  /** Before each retry: `false` cancels it, and the call fails with the last attempt's error. */
  beforeRetry?: ((retry: BeforeRetryContext) => boolean | void | Promise<boolean | void>) | undefined;
  /** Once the call failed: observes its final `SvcError`. */
  onError?: ((failure: ErrorContext) => void | Promise<void>) | undefined;
}

/** The `hooks` option: one set, or several run in order. */
export type ClientHooksOption = ClientHooks | readonly ClientHooks[];

const HOOK_NAMES = ['beforeRequest', 'afterResponse', 'beforeRetry', 'onError'] as const;
type HookName = (typeof HOOK_NAMES)[number];

/** The hook sets of a `hooks` option as a list, or `undefined` when there are none to run. */
export function hookSets(option: ClientHooksOption | undefined): readonly ClientHooks[] | undefined {
  if (option === undefined) return undefined;
  const sets = Array.isArray(option) ? (option as readonly ClientHooks[]) : [option as ClientHooks];
  return sets.length ? sets : undefined;
}

/** The client's hook sets, then the call's. */
export function joinHookSets(client: readonly ClientHooks[] | undefined, call: ClientHooksOption | undefined): readonly ClientHooks[] | undefined {
  const own = hookSets(call);
  return own === undefined ? client : client === undefined ? own : [...client, ...own];
}

/** What is wrong with a `hooks` option, one issue each (a client's or a call's). */
export function hooksIssues(option: unknown): Issue[] {
  if (option === undefined) return [];
  const sets = Array.isArray(option) ? option : [option];
  const issues: Issue[] = [];
  sets.forEach((set: unknown, index) => {
    const at = Array.isArray(option) ? ['hooks', index] : ['hooks'];
    if (typeof set !== 'object' || set === null || Array.isArray(set)) {
      issues.push({ path: at, message: `${at.join('.')} must be an object of hooks (${HOOK_NAMES.join(', ')}), or an array of them` });
      return;
    }
    for (const name of Object.keys(set)) {
      const hook = (set as Record<string, unknown>)[name];
      if (!(HOOK_NAMES as readonly string[]).includes(name)) {
        issues.push({ path: [...at, name], message: `${[...at, name].join('.')} is not a hook: use ${HOOK_NAMES.join(', ')}` });
      } else if (hook !== undefined && typeof hook !== 'function') {
        issues.push({ path: [...at, name], message: `${[...at, name].join('.')} must be a function` });
      }
    }
  });
  return issues;
}

/** What the API key's value is shown as to `beforeRequest`. */
export const REDACTED_AUTHORIZATION = 'Bearer [redacted]';

// `/api/v1/rooms/42/documents` → `/api/v1/rooms/{room_id}/documents`: the path`` tag encodes each id
// as a segment of digits (every id is a positive integer), named here after the collection before it.
const ID_SEGMENT = /^\d+$/;

/** The URL template of a path: each id segment named after the (plural) segment before it; no query. */
export function urlTemplateOf(path: string): string {
  const segments = path.split(/[?#]/, 1)[0]!.split('/');
  // Segment 0 is the empty one before the leading slash: never an id, so an id always has one before it.
  return segments.map((segment, index) => (ID_SEGMENT.test(segment) ? `{${singular(segments[index - 1]!)}_id}` : segment)).join('/');
}

function singular(collection: string): string {
  const name = collection.replace(/-/g, '_');
  return name.endsWith('s') ? name.slice(0, -1) : name || 'param';
}

/** What the core keeps of a call's request headers while a hook may change them. */
interface HeaderHolder {
  headers: Record<string, string>;
}

/** One call's hooks: runs them at the core's call sites and keeps what they share (attempt count, timing). */
export class CallHooks {
  readonly call: CallInfo;
  readonly #sets: readonly ClientHooks[];
  /** Whether any set has a `beforeRetry` (the core then asks ky to call it). */
  readonly hasBeforeRetry: boolean;
  #attempts = 0;
  #started = 0;
  #attemptEnded = 0;

  constructor(sets: readonly ClientHooks[], call: CallInfo) {
    this.#sets = sets;
    this.call = call;
    this.hasBeforeRetry = sets.some((set) => set.beforeRetry);
  }

  /**
   * Wraps the core's attempt: runs `beforeRequest` on a copy of the call's base headers with the key
   * redacted, sends what the hooks made of them with the real key, and notes when the attempt ended.
   * Hooks that return no promise are run without one (a no-op hook costs next to nothing).
   */
  aroundAttempt<I>(attempt: (input: Request, init: I) => Promise<Response>, holder: HeaderHolder): (input: Request, init: I) => Promise<Response> {
    const base = holder.headers;
    const rewrites = this.#sets.some((set) => set.beforeRequest);
    const ended = (): void => {
      this.#attemptEnded = performance.now();
    };
    return (input, init) => {
      const number = ++this.#attempts;
      if (number === 1) this.#started = performance.now();
      const send = () => {
        const sent = attempt(input, init);
        sent.then(ended, ended);
        return sent;
      };
      if (!rewrites) return send();
      const headers = { ...base };
      if (base.authorization !== undefined) headers.authorization = REDACTED_AUTHORIZATION;
      const sendWithKey = () => {
        holder.headers = withAuthorization(headers, base.authorization);
        return send();
      };
      try {
        const ran = this.#run('beforeRequest', { call: this.call, attempt: number, url: input.url, headers }, `attempt ${number} was not sent`);
        return ran ? ran.then(sendWithKey) : sendWithKey();
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }

  /** Runs `beforeRetry` for the attempt ky is about to send: `false` when a hook cancelled it. */
  async beforeRetry(error: SvcError): Promise<boolean> {
    const context: BeforeRetryContext = {
      call: this.call,
      attempt: this.#attempts + 1,
      error,
      delayMs: Math.max(0, Math.round(performance.now() - this.#attemptEnded)),
    };
    for (const set of this.#sets) {
      if (!set.beforeRetry) continue;
      let verdict: boolean | void;
      try {
        verdict = await set.beforeRetry(context);
      } catch (cause) {
        throw hookFailed(this.call, 'beforeRetry', cause, 'it was not retried');
      }
      if (verdict === false) return false;
    }
    return true;
  }

  /** Runs `afterResponse` for a call that succeeded and gives the exchange back; a hook's failure goes through `onError`. */
  afterResponse<E extends { readonly response: Response }>(exchange: E): E | Promise<E> {
    const { response } = exchange;
    let ran: void | Promise<void>;
    try {
      ran = this.#run(
        'afterResponse',
        { call: this.call, response, attempts: this.#attempts, durationMs: this.#elapsed() },
        `it was answered ${response.status}, so it may have taken effect`,
      );
    } catch (error) {
      return this.onError(error);
    }
    return ran ? ran.then(() => exchange, (error: unknown) => this.onError(error)) : exchange;
  }

  /** Runs `onError` for a call that failed; rejects with the error to throw (the hook's own when one threw). */
  onError(error: unknown): Promise<never> {
    // The core maps every failure to an SvcError (toSvcError) before it gets here.
    const failure = error as SvcError;
    try {
      const ran = this.#run('onError', { call: this.call, error: failure, attempts: this.#attempts, durationMs: this.#elapsed() }, `it had failed with ${failure.name}`);
      return ran ? ran.then(() => Promise.reject(failure)) : Promise.reject(failure);
    } catch (hookError) {
      return Promise.reject(hookError);
    }
  }

  /** Since the first attempt started (hooks run only for calls that sent one). */
  #elapsed(): number {
    return performance.now() - this.#started;
  }

  /**
   * Runs one hook of every set, in order, from set `from`: synchronously while they return no
   * promise, then after each promise. A hook's throw or rejection becomes the call's SvcError.
   */
  #run<C>(name: Exclude<HookName, 'beforeRetry'>, context: C, consequence: string, from = 0): void | Promise<void> {
    const sets = this.#sets;
    for (let index = from; index < sets.length; index++) {
      const hook = sets[index]![name] as ((context: C) => unknown) | undefined;
      if (!hook) continue;
      let result: unknown;
      try {
        result = hook(context);
      } catch (cause) {
        throw hookFailed(this.call, name, cause, consequence);
      }
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
        return Promise.resolve(result).then(
          () => this.#run(name, context, consequence, index + 1),
          (cause: unknown) => {
            throw hookFailed(this.call, name, cause, consequence);
          },
        );
      }
    }
  }
}

/** The headers a hook made, with the client's Authorization put back (whatever case a hook spelled it in). */
function withAuthorization(headers: Record<string, string>, authorization: string | undefined): Record<string, string> {
  for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
  if (authorization !== undefined) headers.authorization = authorization;
  return headers;
}

/** The error a throwing hook fails its call with; the hook's error is its `cause`, never quoted (it may hold anything). */
function hookFailed(call: CallInfo, name: HookName, cause: unknown, consequence: string): SvcError {
  return new SvcError(`[svc-sdk] ${call.operation}: the ${name} hook threw, so the call failed (${consequence}); see the error's cause`, { cause });
}
