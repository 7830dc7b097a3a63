import { ValidationError, type Issue } from './errors.js';

/**
 * Why an attempt failed, as the budget prices its retry: the service throttled (`throttled`: 429),
 * failed (`server`: 408, 5xx), or never answered (`timeout`: a timeout or a failed connection).
 */
export type RetryKind = 'throttled' | 'server' | 'timeout';

/** Settings of a `RetryBudget`; each has AWS standard mode's value by default. */
export interface RetryBudgetOptions {
  /** Tokens the budget holds, full at the start. Default 500. */
  capacity?: number | undefined;
  /** Tokens a retry takes, by why the attempt failed. Default `{ throttled: 5, server: 5, timeout: 10 }`. */
  costs?: Partial<Record<RetryKind, number>> | undefined;
  /** Tokens a call that succeeded at its first attempt gives back (a retried one gives back its last retry's cost). Default 1. */
  refill?: number | undefined;
}

const DEFAULT_COSTS: Readonly<Record<RetryKind, number>> = Object.freeze({ throttled: 5, server: 5, timeout: 10 });

/**
 * A client's retry budget (AWS SDKs' "retry quota", standard mode): a bucket of tokens every call
 * of the client shares. A retry takes tokens (5, or 10 after a timeout); a success puts back the cost
 * of its last retry, or 1 when it needed none; an empty bucket means no retry, and the call fails
 * with the attempt's error, saying so. In an outage the retries stop after about a hundred, so the
 * fleet's load on a failing service stays near its first attempts', instead of tripling.
 *
 * `new Client({ retryBudget })` takes one (share it between clients of the same service), its
 * options, or `false` for none; each client has its own by default.
 *
 * @example
 * ```ts
 * import { Client, RetryBudget } from 'svc-sdk';
 *
 * const budget = new RetryBudget({ capacity: 500 });
 * const reader = new Client({ retryBudget: budget });
 * const writer = new Client({ retryBudget: budget, apiKey: process.env.SVC_WRITER_KEY });
 * ```
 */
export class RetryBudget {
  /** Tokens the budget holds when full. */
  readonly capacity: number;
  readonly #costs: Readonly<Record<RetryKind, number>>;
  readonly #refill: number;
  #available: number;

  /**
   * Checks the options (a `ValidationError` of `new RetryBudget()` names the bad one).
   *
   * @param options The bucket's `capacity` (500), each kind's `costs` (5 a retry, 10 after a timeout) and the `refill` a success gives back (1).
   */
  constructor(options: RetryBudgetOptions = {}) {
    const issues = retryBudgetIssues(options, []);
    if (issues.length) throw new ValidationError('new RetryBudget()', issues);
    this.capacity = options.capacity ?? 500;
    this.#costs = { ...DEFAULT_COSTS, ...definedOf(options.costs) };
    this.#refill = options.refill ?? 1;
    this.#available = this.capacity;
  }

  /** Tokens left now. */
  get available(): number {
    return this.#available;
  }

  /**
   * Tokens a retry after a failure of this kind takes.
   *
   * @param kind The failure the retry follows: a refusal the service answered, a timeout or a failed connection.
   */
  costOf(kind: RetryKind): number {
    return this.#costs[kind];
  }

  /**
   * Takes the tokens of one retry and returns how many, or `undefined` (taking none) when fewer are left.
   *
   * @param kind The failure the retry follows (its cost is `costOf(kind)`).
   */
  take(kind: RetryKind): number | undefined {
    const cost = this.#costs[kind];
    if (this.#available < cost) return undefined;
    this.#available -= cost;
    return cost;
  }

  /**
   * A call succeeded: `retryCost` (its last retry's cost) comes back, or the refill when it was not retried; never past `capacity`.
   *
   * @param retryCost What the call's last retry took, or `undefined` when it was not retried.
   */
  succeeded(retryCost: number | undefined): void {
    this.#available = Math.min(this.capacity, this.#available + (retryCost ?? this.#refill));
  }
}

function definedOf(costs: Partial<Record<RetryKind, number>> | undefined): Partial<Record<RetryKind, number>> {
  const defined: Partial<Record<RetryKind, number>> = {};
  for (const kind of Object.keys(DEFAULT_COSTS) as RetryKind[]) if (costs?.[kind] !== undefined) defined[kind] = costs[kind];
  return defined;
}

const isCount = (value: unknown, minimum: number): boolean => Number.isSafeInteger(value) && (value as number) >= minimum;

/**
 * What is wrong with a `retryBudget` option (`path` is where it sits: `['retryBudget']` for a
 * client): a `RetryBudget`, its options, or `false`.
 */
export function retryBudgetIssues(value: unknown, path: PropertyKey[]): Issue[] {
  if (value === undefined || value === false || value instanceof RetryBudget) return [];
  const where = path.length ? `${path.map(String).join('.')}.` : '';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ path, message: `${path.map(String).join('.') || 'retryBudget'} must be a RetryBudget, its options ({ capacity, costs, refill }) or false` }];
  }
  const { capacity, costs, refill } = value as RetryBudgetOptions;
  const issues: Issue[] = [];
  if (capacity !== undefined && !isCount(capacity, 0)) issues.push({ path: [...path, 'capacity'], message: `${where}capacity must be a whole number of tokens, 0 or more (default 500)` });
  if (refill !== undefined && !isCount(refill, 0)) issues.push({ path: [...path, 'refill'], message: `${where}refill must be a whole number of tokens, 0 or more (default 1)` });
  if (costs !== undefined) {
    if (typeof costs !== 'object' || costs === null) issues.push({ path: [...path, 'costs'], message: `${where}costs must be an object of throttled, server and timeout costs` });
    else {
      for (const [kind, cost] of Object.entries(costs)) {
        if (!Object.hasOwn(DEFAULT_COSTS, kind)) issues.push({ path: [...path, 'costs', kind], message: `${where}costs.${kind} is not a kind of retry: use throttled, server or timeout` });
        else if (cost !== undefined && !isCount(cost, 1)) issues.push({ path: [...path, 'costs', kind], message: `${where}costs.${kind} must be a whole number of tokens, 1 or more` });
      }
    }
  }
  return issues;
}

/** The budget a client's option makes: its own instance, a shared one, or none (`false`). */
export function budgetOf(option: RetryBudget | RetryBudgetOptions | false | undefined): RetryBudget | undefined {
  if (option === false) return undefined;
  return option instanceof RetryBudget ? option : new RetryBudget(option);
}
