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
// (http.ts), so no hook can make it send twice. Which hooks a set has is read once, when the client
// (or the call, for a call's own sets) is made: a call does no work for a hook no set has.
import { SvcError } from '../shared/svc-error.js';
import type { Issue } from './errors.js';
// The public hook types live with the core's other shared types (types.ts, which imports no core module):
// RequestOptions names ClientHooksOption, and this module needs HttpMethod.
import type { AfterResponseContext, BeforeRequestContext, BeforeRetryContext, CallInfo, ClientHooks, ClientHooksOption, ErrorContext } from './types.js';

export type { AfterResponseContext, BeforeRequestContext, BeforeRetryContext, CallInfo, ClientHooks, ClientHooksOption, ErrorContext } from './types.js';

const HOOK_NAMES = ['beforeRequest', 'afterResponse', 'beforeRetry', 'onError'] as const;
type HookName = (typeof HOOK_NAMES)[number];

/**
 * A `hooks` option's sets, and which hooks any of them has: read once, when the client is made (a
 * call's own sets, when the call is made), so a call skips what no set has without looking again.
 */
export interface HookSets {
  readonly sets: readonly ClientHooks[];
  readonly has: Readonly<Record<HookName, boolean>>;
}

/** The hook sets of a `hooks` option, or `undefined` when there are none to run. */
export function hookSets(option: ClientHooksOption | undefined): HookSets | undefined {
  if (option === undefined) return undefined;
  const sets = Array.isArray(option) ? (option as readonly ClientHooks[]) : [option as ClientHooks];
  return sets.length ? listed(sets) : undefined;
}

function listed(sets: readonly ClientHooks[]): HookSets {
  return { sets, has: Object.fromEntries(HOOK_NAMES.map((name) => [name, sets.some((set) => set[name])])) as Record<HookName, boolean> };
}

/** The client's hook sets, then the call's. */
export function joinHookSets(client: HookSets | undefined, call: ClientHooksOption | undefined): HookSets | undefined {
  const own = hookSets(call);
  return own === undefined ? client : client === undefined ? own : listed([...client.sets, ...own.sets]);
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
// An id segment starts with a digit right after a slash.
const MAY_HAVE_ID_OR_QUERY = /\/\d|[?#]/;

/** The URL template of a path: each id segment named after the (plural) segment before it; no query. */
export function urlTemplateOf(path: string): string {
  // Most paths have no id and no query (`/rooms`): they are their own template.
  if (!MAY_HAVE_ID_OR_QUERY.test(path)) return path;
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

/** A hook of the sets' that `#run` calls, with its context. */
type RunHook = Exclude<HookName, 'beforeRetry'>;

/**
 * One call's hooks: runs them at the core's call sites and keeps what they share (attempt count, timing).
 * Cheap when a hook does little: no closure, copy or promise is made for what no set has.
 */
export class CallHooks {
  readonly call: CallInfo;
  readonly #hooks: HookSets;
  #attempts = 0;
  #started = 0;
  #attemptEnded = 0;

  constructor(hooks: HookSets, call: CallInfo) {
    this.#hooks = hooks;
    this.call = call;
  }

  /** Which hooks the call's sets have: the core asks ky for `beforeRetry`, and waits for the call's end, only when one has them. */
  get has(): HookSets['has'] {
    return this.#hooks.has;
  }

  /**
   * Wraps the core's attempt: runs `beforeRequest` on a copy of the call's base headers with the key
   * redacted, sends what the hooks made of them with the real key, and notes when the attempt ended
   * (for `beforeRetry`'s delay: only when the call may retry). Hooks that return no promise are run
   * without one (a no-op hook costs next to nothing).
   */
  aroundAttempt<I>(attempt: (input: Request, init: I) => Promise<Response>, holder: HeaderHolder, retries: boolean): (input: Request, init: I) => Promise<Response> {
    const base = holder.headers;
    const rewrites = this.#hooks.has.beforeRequest;
    const ended = retries && this.#hooks.has.beforeRetry ? () => void (this.#attemptEnded = performance.now()) : undefined;
    const send = (input: Request, init: I): Promise<Response> => {
      const sent = attempt(input, init);
      if (ended) sent.then(ended, ended);
      return sent;
    };
    return (input, init) => {
      const number = ++this.#attempts;
      if (number === 1) this.#started = performance.now();
      if (!rewrites) return send(input, init);
      const headers = { ...base };
      const authorization = base.authorization;
      if (authorization !== undefined) headers.authorization = REDACTED_AUTHORIZATION;
      let ran: void | Promise<void>;
      try {
        ran = this.#run('beforeRequest', { call: this.call, attempt: number, url: input.url, headers });
      } catch (error) {
        return Promise.reject(error);
      }
      if (ran) {
        return ran.then(() => {
          holder.headers = withAuthorization(headers, authorization);
          return send(input, init);
        });
      }
      holder.headers = withAuthorization(headers, authorization);
      return send(input, init);
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
    for (const set of this.#hooks.sets) {
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
    if (!this.#hooks.has.afterResponse) return exchange;
    let ran: void | Promise<void>;
    try {
      ran = this.#run('afterResponse', { call: this.call, response: exchange.response, attempts: this.#attempts, durationMs: this.#elapsed() });
    } catch (error) {
      return this.onError(error);
    }
    return ran ? ran.then(() => exchange, (error: unknown) => this.onError(error)) : exchange;
  }

  /** Runs `onError` for a call that failed; rejects with the error to throw (the hook's own when one threw). */
  onError(error: unknown): Promise<never> {
    // The core maps every failure to an SvcError (toSvcError) before it gets here.
    const failure = error as SvcError;
    if (!this.#hooks.has.onError) return Promise.reject(failure);
    try {
      const ran = this.#run('onError', { call: this.call, error: failure, attempts: this.#attempts, durationMs: this.#elapsed() });
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
  #run<N extends RunHook>(name: N, context: RunContext[N], from = 0): void | Promise<void> {
    const sets = this.#hooks.sets;
    for (let index = from; index < sets.length; index++) {
      const hook = sets[index]![name] as ((context: RunContext[N]) => unknown) | undefined;
      if (!hook) continue;
      let result: unknown;
      try {
        result = hook(context);
      } catch (cause) {
        throw hookFailed(this.call, name, cause, consequenceOf(name, context));
      }
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
        return Promise.resolve(result).then(
          () => this.#run(name, context, index + 1),
          (cause: unknown) => {
            throw hookFailed(this.call, name, cause, consequenceOf(name, context));
          },
        );
      }
    }
  }
}

/** The context each hook `#run` calls gets. */
interface RunContext {
  beforeRequest: BeforeRequestContext;
  afterResponse: AfterResponseContext;
  onError: ErrorContext;
}

/** What a failed hook meant for its call, said in its error (built only when a hook failed). */
function consequenceOf<N extends RunHook>(name: N, context: RunContext[N]): string {
  if (name === 'beforeRequest') return `attempt ${(context as BeforeRequestContext).attempt} was not sent`;
  if (name === 'afterResponse') return `it was answered ${(context as AfterResponseContext).response.status}, so it may have taken effect`;
  return `it had failed with ${(context as ErrorContext).error.name}`;
}

/**
 * The headers a hook made, with the client's Authorization put back (whatever case a hook spelled
 * it in). Set in place: `delete` only for another spelling a hook made (it turns the object into a
 * slow dictionary, which fetch then reads key by key).
 */
function withAuthorization(headers: Record<string, string>, authorization: string | undefined): Record<string, string> {
  for (const name in headers) if (name.length === 13 && name !== 'authorization' && name.toLowerCase() === 'authorization') delete headers[name];
  if (authorization === undefined) delete headers.authorization;
  else headers.authorization = authorization;
  return headers;
}

/** The error a throwing hook fails its call with; the hook's error is its `cause`, never quoted (it may hold anything). */
function hookFailed(call: CallInfo, name: HookName, cause: unknown, consequence: string): SvcError {
  return new SvcError(`[svc-sdk] ${call.operation}: the ${name} hook threw, so the call failed (${consequence}); see the error's cause`, { cause });
}
