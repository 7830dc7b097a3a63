// The runner of client hooks, made (http.ts) only for a client or call that has some.
//
// When they run (the attempt, attempt.ts, calls the first; the call's end, http.ts, the others):
//   beforeRequest  before each attempt is sent, on a copy of its headers that holds no spelling of
//                  `authorization`; the headers sent are built afresh from that copy's own data
//                  properties, and the key is added after, where no hook can see or replace it
//   beforeRetry    after a failed attempt, when ky is about to send the next one (false cancels it)
//   afterResponse  once, when the call succeeded (each page of a list is a call of its own)
//   onError        once, when the call failed, with the final SvcError
// The sets run in order (the client's, then the call's). A hook's return value is ignored but for
// beforeRetry's `false`, which can only stop retries: a create is given none (http.ts), so no hook can
// make it send twice. A hook that throws fails the call with an SvcError whose cause is what it threw.
// A hook that runs after an attempt (afterResponse, beforeRetry, onError) is raced against the call's
// `timeout` and its signal: a hook that never settles cannot hold the call past either.
import { SvcError } from '../shared/svc-error.js';
import { APIUserAbortError } from './errors.js';
import type { AfterResponseContext, BeforeRequestContext, BeforeRetryContext, CallInfo, ErrorContext, HookName, HookSets } from './types.js';

// The public hook types live with the core's other shared types (types.ts); named here too, for the modules that run or make hooks (svc-sdk/otel).
export type { AfterResponseContext, BeforeRequestContext, BeforeRetryContext, CallInfo, ClientHooks, ClientHooksOption, ErrorContext } from './types.js';

/** How long a hook after an attempt may take, and the caller's signal that ends the wait. */
export interface HookDeadline {
  readonly timeout: number;
  readonly signal: AbortSignal | undefined;
  /** The call's URL, for the error of a cancelled call. */
  readonly url: string;
}

/** One call's hooks: the sets it runs, what it tells them about the call, and its deadline. */
export class CallHooks {
  readonly call: CallInfo;
  readonly has: HookSets['has'];
  readonly #sets: HookSets['sets'];
  readonly #deadline: HookDeadline;

  constructor(hookSets: HookSets, call: CallInfo, deadline: HookDeadline) {
    this.#sets = hookSets.sets;
    this.has = hookSets.has;
    this.call = call;
    this.#deadline = deadline;
  }

  /**
   * Runs `beforeRequest` on a copy of `headers` without the key, and returns the headers to send:
   * built afresh from the copy's own data properties, still without the key (the attempt adds it).
   * Hooks that return no promise run without one.
   */
  beforeRequest(attempt: number, url: string, headers: Record<string, string>): Record<string, string> | Promise<Record<string, string>> {
    const shown = ownHeaders(headers);
    const context: BeforeRequestContext = { call: this.call, attempt, url, headers: shown };
    const ran = this.#each('beforeRequest', context, (cause) => hookFailed(this.call, 'beforeRequest', cause, `attempt ${attempt} was not sent`));
    return ran ? ran.then(() => ownHeaders(shown)) : ownHeaders(shown);
  }

  /** Runs `beforeRetry` for the attempt ky is about to send: `false` when a hook cancelled it. */
  async beforeRetry(context: Omit<BeforeRetryContext, 'call'>): Promise<boolean> {
    const full: BeforeRetryContext = { call: this.call, ...context };
    for (const set of this.#sets) {
      const hook = set.beforeRetry;
      if (!hook) continue;
      let verdict: boolean | void;
      try {
        verdict = await this.#raced('beforeRetry', hook(full));
      } catch (cause) {
        throw raceFailure(cause) ?? hookFailed(this.call, 'beforeRetry', cause, 'it was not retried');
      }
      if (verdict === false) return false;
    }
    return true;
  }

  /** Runs `afterResponse` for a call that succeeded (without a promise while its hooks return none); a hook's failure fails the call, through `onError`. */
  afterResponse(context: Omit<AfterResponseContext, 'call'>): void | Promise<void> {
    const full: AfterResponseContext = { call: this.call, ...context };
    const failed = (failure: unknown) => this.onError({ error: failure as SvcError, attempts: context.attempts, durationMs: context.durationMs });
    let ran: void | Promise<void>;
    try {
      ran = this.#each('afterResponse', full, (cause) => hookFailed(this.call, 'afterResponse', cause, `it was answered ${context.response.status}, so it may have taken effect`));
    } catch (failure) {
      return failed(failure);
    }
    return ran?.catch(failed);
  }

  /** Runs `onError` for a call that failed, and rejects with the error to throw (the hook's own when one threw). */
  async onError(context: Omit<ErrorContext, 'call'>): Promise<never> {
    const full: ErrorContext = { call: this.call, ...context };
    for (const set of this.#sets) {
      const hook = set.onError;
      if (!hook) continue;
      try {
        await this.#raced('onError', hook(full));
      } catch (cause) {
        // A hook that outlived the call's timeout only observed: the call's own failure stands.
        if (cause instanceof HookTimedOut) break;
        throw raceFailure(cause) ?? hookFailed(this.call, 'onError', cause, `it had failed with ${context.error.name}`);
      }
    }
    throw context.error;
  }

  /**
   * Runs hook `name` of every set from `from`, in order: synchronously while they return no promise,
   * then each after the one before settled, raced against the call. What a hook throws becomes
   * `wrap(cause)`; the SDK's own errors of a race pass as they are.
   */
  #each<C>(name: 'beforeRequest' | 'afterResponse', context: C, wrap: (cause: unknown) => SvcError, from = 0): void | Promise<void> {
    const sets = this.#sets;
    for (let index = from; index < sets.length; index++) {
      const hook = sets[index]![name] as ((context: C) => unknown) | undefined;
      if (!hook) continue;
      let result: unknown;
      try {
        result = hook(context);
      } catch (cause) {
        throw wrap(cause);
      }
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
        // beforeRequest's race is the attempt's too (ky's timeout covers the attempt): the first to end wins, with the same outcome.
        return Promise.resolve(this.#raced(name, result)).then(
          () => this.#each(name, context, wrap, index + 1),
          (cause: unknown) => {
            throw raceFailure(cause) ?? wrap(cause);
          },
        );
      }
    }
  }

  /** A hook's result, or a rejection once the call's timeout passes or its signal aborts; a plain value passes at once. */
  #raced<T>(name: HookName, result: T | Promise<T>): T | Promise<T> {
    if (typeof (result as PromiseLike<T> | undefined)?.then !== 'function') return result;
    const { timeout, signal, url } = this.#deadline;
    const { method } = this.call;
    return new Promise<T>((resolve, reject) => {
      const stop = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
      };
      const aborted = (): void => {
        stop();
        reject(new APIUserAbortError(method, url, signal!.reason));
      };
      const timer = setTimeout(() => {
        stop();
        reject(new HookTimedOut(this.call, name, timeout));
      }, timeout);
      if (signal?.aborted) return aborted();
      // Not `once`: `aborted` removes it (stop), as every way the race ends does.
      signal?.addEventListener('abort', aborted);
      Promise.resolve(result).then(
        (value) => {
          stop();
          resolve(value);
        },
        (error: unknown) => {
          stop();
          reject(error);
        },
      );
    });
  }
}

/** A hook that did not settle within the call's timeout: the call fails (or, for onError, keeps its failure). */
class HookTimedOut extends SvcError {
  override name = 'SvcError';
  constructor(call: CallInfo, name: HookName, timeout: number) {
    super(`[svc-sdk] ${call.operation}: the ${name} hook did not settle within ${timeout} ms (the call's timeout), so the call stopped waiting for it`);
  }
}

/** The SDK's own error of a raced hook (a timeout, the caller's cancel), which passes as it is; `undefined` for what a hook threw (its caller wraps that). */
function raceFailure(cause: unknown): SvcError | undefined {
  return cause instanceof HookTimedOut || cause instanceof APIUserAbortError ? cause : undefined;
}

/**
 * A fresh record of `headers`' own enumerable data properties with string values, every spelling of
 * `authorization` left out. Accessors are never called: a hook that defined one gets nothing through it.
 */
function ownHeaders(headers: Record<string, string>): Record<string, string> {
  const fresh: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === 'authorization') continue;
    // A descriptor never calls a getter (so no code runs between the listing and here, and the key is still
    // there); an accessor's has no `value`.
    const value: unknown = Object.getOwnPropertyDescriptor(headers, name)!.value;
    if (typeof value === 'string') fresh[name] = value;
  }
  return fresh;
}

/** The error a throwing hook fails its call with; the hook's error is its `cause`, never quoted (it may hold anything). */
function hookFailed(call: CallInfo, name: HookName, cause: unknown, consequence: string): SvcError {
  return new SvcError(`[svc-sdk] ${call.operation}: the ${name} hook threw, so the call failed (${consequence}); see the error's cause`, { cause });
}
