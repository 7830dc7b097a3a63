import type { WebhookEvent } from '../webhooks/events.js';
import { createMemoryLedgerStore } from './store-memory.js';
import type { LedgerCommit, LedgerStore } from './store.js';
import { applyActionEvent, applyCreditEvent, applyJobEvent, NO_CREDITS, readLedgerEvent, type StoredAction } from './transition.js';
import type {
  ActionDecision,
  ActionRecord,
  CreditState,
  DecisionHandler,
  DecisionSubscription,
  DecisionTimeout,
  ExpiryWindows,
  HandlerRuns,
  JobOutcome,
  OnDecisionOptions,
  PendingFilter,
  RecordOutcome,
  RunRecord,
  WaitForDecisionOptions,
} from './types.js';
import { createWaiters } from './waiters.js';
import { runDecisionHandler } from './handlers.js';

/** The interface's default pending-action window. */
export const DEFAULT_WINDOW_MS = 24 * 3_600_000;

/** Options of `createActionLedger`. */
export interface ActionLedgerOptions {
  /** Where the state is kept. Default: this process's memory (`createMemoryLedgerStore()`); `createRedisLedgerStore(client)` shares it. */
  store?: LedgerStore | undefined;
  /** Expiry windows per kind, for the estimated `expiresAt` of pending actions. Default 24 h for every kind. */
  windows?: ExpiryWindows | undefined;
  /** How often `waitForDecision` reads the store besides hearing its notifications (a bound on a missed one), in ms. Default 1000. */
  pollMs?: number | undefined;
}

/** The agent-action ledger: every action from proposal to decision, a run's jobs, the credits. */
export interface ActionLedger {
  /**
   * Records any delivery (ones not action.*, job.* or credit.* are ignored); one seen before (its delivery_id) changes nothing.
   *
   * @param event The verified delivery, with its `delivery_id`, as `verifyWebhook`, the receiver or an inbox gives it.
   */
  record(event: WebhookEvent): Promise<RecordOutcome>;
  /**
   * An action as known, or `undefined`.
   *
   * @param actionId The action's `action_id` (a number and its string are one action).
   */
  get(actionId: string | number): Promise<ActionRecord | undefined>;
  /**
   * The pending actions, oldest proposal first, as an async iterable.
   *
   * @param filter Only those of a `kind` or `runId`, or expiring within `expiringWithinMs`; every pending action by default.
   */
  pending(filter?: PendingFilter): AsyncIterable<ActionRecord>;
  /**
   * A run's actions and job outcomes.
   *
   * @param runId The agent run's `run_id`.
   */
  run(runId: string | number): Promise<RunRecord>;
  /** The credits as the last credit.* event told them. */
  credits(): Promise<CreditState>;
  /**
   * Resolves with the action's decision, however long ago it arrived and whichever process
   * recorded it (with a shared store), or `{ status: 'timeout' }` after `timeoutMs`; rejects with
   * the signal's reason when it aborts.
   *
   * @param actionId The action's `action_id`.
   * @param options The `timeoutMs` to wait at most (default: until the signal aborts) and the `signal`.
   */
  waitForDecision(actionId: string | number, options?: WaitForDecisionOptions): Promise<ActionDecision | DecisionTimeout>;
  /**
   * Runs `handler` once per decided action across every process sharing the store (again only after a run that did not finish).
   *
   * @param handler Called with each decided action and which run this is; a run that throws runs again.
   * @param options The handler's `name` (default `'default'`), `leaseMs`, `pollMs`, `retryDelayMs` and `onError`.
   */
  onDecision(handler: DecisionHandler, options?: OnDecisionOptions): DecisionSubscription;
  /**
   * How often the handler named `name` (default `'default'`) ran for an action, and whether a run finished.
   *
   * @param actionId The action's `action_id`.
   * @param name The handler's name, as given to `onDecision`. Default `'default'`.
   */
  handled(actionId: string | number, name?: string): Promise<HandlerRuns>;
  /**
   * Pending actions whose estimated expiry is within `withinMs` (past ones included), soonest first: for reminders.
   *
   * @param withinMs How far ahead to look, in ms, 0 or more.
   */
  dueSoon(withinMs: number): Promise<ActionRecord[]>;
  /** Stops the waits and handlers of this ledger and closes its store. */
  close(): Promise<void>;
}

/** How many times `record` reads again when another process changed the same document meanwhile. */
const MAX_CONFLICTS = 100;
const PAGE = 100;

/**
 * Creates an action ledger: `record` every delivery (from `createWebhookHandler`'s `on`, an inbox
 * worker or a queue consumer), then read, wait for and react to the GP's decisions.
 *
 * @param options The `store` (this process's memory by default), the expiry `windows` per kind (24 h by default), and `pollMs` (default 1000).
 *
 * @example
 * ```ts
 * import { createActionLedger, createRedisLedgerStore } from 'svc-sdk/actions';
 * const ledger = createActionLedger({ store: createRedisLedgerStore(redis) });
 * inbox.process((event) => ledger.record(event));
 * const decision = await ledger.waitForDecision(actionId, { timeoutMs: 3_600_000 });
 * if (decision.status === 'approved') console.log(decision.result);
 * ```
 */
export function createActionLedger(options: ActionLedgerOptions = {}): ActionLedger {
  const store = options.store ?? createMemoryLedgerStore();
  if (typeof store.commit !== 'function') throw new TypeError('[svc-sdk] createActionLedger: store must be a LedgerStore (createMemoryLedgerStore() or createRedisLedgerStore(client))');
  const windowOf = windowsOf(options.windows);
  const pollMs = positive(options.pollMs ?? 1000, 'createActionLedger: pollMs');
  const subscriptions = new Set<DecisionSubscription>();

  const toRecord = (stored: StoredAction): ActionRecord => {
    // Pending means proposed (a decision first is never pending): proposedAt is there.
    if (stored.status === 'pending') {
      return { ...stored, expiresAt: { at: new Date(Date.parse(stored.proposedAt!) + windowOf(stored.kind)).toISOString(), estimated: true } };
    }
    // Not pending means decided: the decision is there.
    const decision = stored.decision!;
    if (decision.status === 'expired') return { ...stored, expiresAt: { at: decision.expiredAt, estimated: false } };
    return stored;
  };
  const actions = async (ids: readonly string[]): Promise<ActionRecord[]> => {
    const values = await store.getMany(ids.map((id) => `action:${id}`));
    return values.filter((value): value is string => value !== undefined).map((value) => {
      const stored = JSON.parse(value) as StoredAction;
      return toRecord({ ...stored, runId: stored.runId }); // JSON drops the key of an unknown run id
    });
  };
  const get = async (actionId: string | number) => (await actions([idOf(actionId, 'actionId')]))[0];
  const waiters = createWaiters(store, get, pollMs);

  /** Read, compute, commit; again while another process changed the same document meanwhile. */
  const change = async <T>(key: string, deliveryId: string, compute: (current: T | undefined) => Omit<LedgerCommit, 'deliveryId' | 'key' | 'version' | 'value'> & { next?: T | undefined }) => {
    for (let conflicts = 0; conflicts < MAX_CONFLICTS; conflicts++) {
      const read = await store.read(key, deliveryId);
      const current = read.value === undefined ? undefined : (JSON.parse(read.value) as T);
      if (read.seen) return { outcome: 'duplicate' as const, current };
      const { next, ...rest } = compute(current);
      // JSON.stringify(undefined) is undefined: no new text when the event changes nothing.
      const result = await store.commit({ ...rest, deliveryId, key, version: read.version, value: JSON.stringify(next) as string | undefined });
      if (result === 'duplicate') return { outcome: 'duplicate' as const, current };
      if (result === 'committed') return next === undefined ? { outcome: 'unchanged' as const, current } : { outcome: 'applied' as const, current: next };
    }
    throw new Error(`[svc-sdk] actions ledger: ${key} kept changing under this record (${MAX_CONFLICTS} tries); record the event again`);
  };

  const ledger: ActionLedger = {
    async record(event) {
      const read = readLedgerEvent(event);
      if (read === undefined) return { outcome: 'ignored' };
      const deliveryId = event.delivery_id;
      if (typeof deliveryId !== 'string' || deliveryId === '') throw new TypeError('[svc-sdk] actions ledger: the event has no delivery_id (pass the delivery as verifyWebhook or the receiver gives it)');
      if (read.area === 'job') {
        const { outcome } = await change<JobOutcome[]>(`job:${read.event.runId}`, deliveryId, (current) => ({ next: applyJobEvent(current, read.event) }));
        return { outcome };
      }
      if (read.area === 'credit') {
        const { outcome } = await change<CreditState>('credits', deliveryId, (current) => ({ next: applyCreditEvent(current, read.event) }));
        return { outcome };
      }
      const { actionId } = read.event;
      const { outcome, current } = await change<StoredAction>(`action:${actionId}`, deliveryId, (current) => {
        const next = applyActionEvent(current, read.event);
        if (next === undefined) return {};
        // The run index gains the action when its run id becomes known: from its first event, or from a
        // proposal that came after an action.expired (which names none).
        const run = current?.runId === undefined && next.runId !== undefined ? { runId: next.runId, actionId } : undefined;
        // A late proposal only fills in a decided action: no index moves, nobody is told again.
        if (current !== undefined && current.status !== 'pending') return { next, run };
        // Otherwise a step out of (none) or pending: pending for a first proposal, else the step into a
        // decision, the moment waiters and handlers hear of.
        const decided = next.status !== 'pending';
        return { next, run, pending: decided ? { actionId, remove: true } : { actionId, score: Date.parse(next.proposedAt!) }, decided: decided ? actionId : undefined };
      });
      return { outcome, action: current && toRecord(current) };
    },

    get,

    pending(filter = {}) {
      const { kind, expiringWithinMs } = filter;
      const runId = filter.runId === undefined ? undefined : idOf(filter.runId, 'pending: runId');
      if (expiringWithinMs !== undefined && !(typeof expiringWithinMs === 'number' && expiringWithinMs >= 0)) {
        throw new TypeError('[svc-sdk] actions ledger: pending: expiringWithinMs must be 0 or more ms');
      }
      return {
        async *[Symbol.asyncIterator]() {
          // Infinity without a bound: the same reads and checks, none of them excluding anything.
          const until = expiringWithinMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + expiringWithinMs;
          // The index is scored by proposal time: an action expires within the bound only if it was proposed before it less the shortest window.
          const ids = await (runId === undefined ? store.pendingIds(until - windowOf.shortest) : store.runActionIds(runId));
          for (let start = 0; start < ids.length; start += PAGE) {
            for (const action of await actions(ids.slice(start, start + PAGE))) {
              if (action.status !== 'pending' || (kind !== undefined && action.kind !== kind)) continue;
              if (Date.parse(action.expiresAt!.at) > until) continue;
              yield action;
            }
          }
        },
      };
    },

    async run(runId) {
      const id = idOf(runId, 'run: runId');
      const [listed, [jobsText]] = await Promise.all([store.runActionIds(id).then(actions), store.getMany([`job:${id}`])]);
      // Every action has one or the other: its proposal, or the decision that came first.
      const when = (action: ActionRecord) => Date.parse(action.proposedAt ?? action.decidedAt!);
      const jobs = jobsText === undefined ? [] : (JSON.parse(jobsText) as JobOutcome[]);
      return { runId: id, actions: listed.sort((a, b) => when(a) - when(b)), jobs, outcome: jobs.at(-1) };
    },

    async credits() {
      const [text] = await store.getMany(['credits']);
      return text === undefined ? NO_CREDITS : (JSON.parse(text) as CreditState);
    },

    waitForDecision(actionId, waitOptions = {}) {
      const { timeoutMs, signal } = waitOptions;
      if (timeoutMs !== undefined) positive(timeoutMs, 'waitForDecision: timeoutMs', true);
      return waiters.wait(idOf(actionId, 'actionId'), timeoutMs, signal);
    },

    onDecision(handler, handlerOptions = {}) {
      if (typeof handler !== 'function') throw new TypeError('[svc-sdk] actions ledger: onDecision(handler): handler must be a function');
      const name = handlerOptions.name ?? 'default';
      if (typeof name !== 'string' || name === '') throw new TypeError('[svc-sdk] actions ledger: onDecision: name must be a non-empty string');
      const subscription = runDecisionHandler(store, get, handler, {
        name,
        leaseMs: positive(handlerOptions.leaseMs ?? 30_000, 'onDecision: leaseMs'),
        pollMs: positive(handlerOptions.pollMs ?? 1000, 'onDecision: pollMs'),
        retryDelayMs: positive(handlerOptions.retryDelayMs ?? 1000, 'onDecision: retryDelayMs', true),
        onError: handlerOptions.onError ?? ((error, action) => console.warn(`[svc-sdk] actions ledger: onDecision handler "${name}" threw for action ${action.actionId}; it runs again:`, error)),
      });
      subscriptions.add(subscription);
      return {
        close: () => {
          subscriptions.delete(subscription);
          return subscription.close();
        },
      };
    },

    async handled(actionId, name = 'default') {
      return store.handlerRuns(name, idOf(actionId, 'actionId'));
    },

    async dueSoon(withinMs) {
      positive(withinMs, 'dueSoon: withinMs', true);
      const due: ActionRecord[] = [];
      for await (const action of ledger.pending({ expiringWithinMs: withinMs })) due.push(action);
      return due.sort((a, b) => Date.parse(a.expiresAt!.at) - Date.parse(b.expiresAt!.at));
    },

    async close() {
      waiters.close();
      await Promise.all([...subscriptions].map((subscription) => subscription.close()));
      subscriptions.clear();
      await store.close();
    },
  };
  return ledger;
}

/** An id as the ledger keys it: a non-empty string or a finite number, as a string. */
function idOf(value: unknown, name: string): string {
  // Number.isFinite is false for anything but a number (it does not convert).
  if ((typeof value === 'string' && value !== '') || Number.isFinite(value)) return String(value);
  throw new TypeError(`[svc-sdk] actions ledger: ${name} must be a non-empty string or a number (the event's action_id / run_id)`);
}

/** A duration option: positive (or 0 when `zero`) and finite, else a TypeError naming it. */
function positive(value: number, name: string, zero = false): number {
  if (Number.isFinite(value) && (zero ? value >= 0 : value > 0)) return value;
  throw new TypeError(`[svc-sdk] actions ledger: ${name} must be a ${zero ? 'non-negative' : 'positive'} number of ms`);
}

/** The window of each kind, and the shortest of all (which bounds the pending index's range). */
function windowsOf(windows: ExpiryWindows = {}): ((kind: string) => number) & { shortest: number } {
  const fallback = positive(windows.defaultMs ?? DEFAULT_WINDOW_MS, 'windows.defaultMs');
  const kinds = new Map(Object.entries(windows.kinds ?? {}).map(([kind, ms]) => [kind, positive(ms, `windows.kinds.${kind}`)]));
  return Object.assign((kind: string) => kinds.get(kind) ?? fallback, { shortest: Math.min(fallback, ...kinds.values()) });
}
