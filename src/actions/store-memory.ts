import type { CommitResult, HandlerClaim, LedgerCommit, LedgerRead, LedgerStore } from './store.js';
import type { HandlerRuns } from './types.js';

/** 7 days: longer than the service's retries (about 10 h 36 min) and an inbox's replays of the day's deliveries. */
export const DELIVERY_TTL_MS = 7 * 86_400_000;

/** Options of `createMemoryLedgerStore`. */
export interface MemoryLedgerStoreOptions {
  /** How long a delivery_id is remembered, in ms. Default 7 days. */
  deliveryTtlMs?: number | undefined;
}

interface HandlerGroup {
  /** Decided, not yet done: action id → decision sequence number. */
  todo: Map<string, number>;
  runs: Map<string, number>;
  done: Set<string>;
  leases: Map<string, { token: string; until: number }>;
}

/**
 * A `LedgerStore` in this process's memory: for one process, and for tests. Its state goes with
 * the process; `createRedisLedgerStore` keeps it for every process and restart.
 *
 * @param options How long a delivery_id is remembered (`deliveryTtlMs`, in ms; default 7 days).
 */
export function createMemoryLedgerStore(options: MemoryLedgerStoreOptions = {}): LedgerStore {
  const deliveryTtlMs = options.deliveryTtlMs ?? DELIVERY_TTL_MS;
  if (!(deliveryTtlMs > 0)) throw new TypeError('[svc-sdk] createMemoryLedgerStore: deliveryTtlMs must be a positive number of ms');
  const documents = new Map<string, { value: string; version: number }>();
  // Insertion order is expiry order (one TTL for all): the oldest are pruned from the front.
  const seen = new Map<string, number>();
  const pending = new Map<string, number>();
  const runs = new Map<string, Set<string>>();
  const decided = new Map<string, number>();
  const groups = new Map<string, HandlerGroup>();
  const listeners = new Set<(actionId: string) => void>();
  let sequence = 0;

  const isSeen = (deliveryId: string, now: number) => {
    for (const [id, until] of seen) {
      if (until > now) break;
      seen.delete(id);
    }
    return seen.has(deliveryId);
  };
  const group = (name: string) => {
    let found = groups.get(name);
    if (!found) {
      // A new name hears every decision made so far.
      found = { todo: new Map(decided), runs: new Map(), done: new Set(), leases: new Map() };
      groups.set(name, found);
    }
    return found;
  };

  return {
    async read(key, deliveryId): Promise<LedgerRead> {
      const document = documents.get(key);
      return { value: document?.value, version: document?.version ?? 0, seen: isSeen(deliveryId, Date.now()) };
    },
    async commit(change: LedgerCommit): Promise<CommitResult> {
      const now = Date.now();
      if (isSeen(change.deliveryId, now)) return 'duplicate';
      const document = documents.get(change.key);
      if ((document?.version ?? 0) !== change.version) return 'conflict';
      seen.set(change.deliveryId, now + deliveryTtlMs);
      if (change.value !== undefined) documents.set(change.key, { value: change.value, version: change.version + 1 });
      if (change.pending) {
        if ('remove' in change.pending) pending.delete(change.pending.actionId);
        else pending.set(change.pending.actionId, change.pending.score);
      }
      if (change.run) {
        const members = runs.get(change.run.runId) ?? new Set<string>();
        members.add(change.run.actionId);
        runs.set(change.run.runId, members);
      }
      if (change.decided !== undefined) {
        const actionId = change.decided;
        sequence += 1;
        decided.set(actionId, sequence);
        for (const { todo } of groups.values()) todo.set(actionId, sequence);
        for (const listener of [...listeners]) listener(actionId);
      }
      return 'committed';
    },
    async getMany(keys) {
      return keys.map((key) => documents.get(key)?.value);
    },
    async pendingIds(maxScore) {
      return [...pending]
        .filter(([, score]) => score <= maxScore)
        .sort((a, b) => a[1] - b[1])
        .map(([id]) => id);
    },
    async runActionIds(runId) {
      return [...(runs.get(runId) ?? [])];
    },
    async handlerTodo(name, limit) {
      // Insertion order is decision order: an action is decided once, and a new name's queue is copied in that order.
      return [...group(name).todo.keys()].slice(0, limit);
    },
    async claimHandler(name, actionId, token, leaseMs): Promise<HandlerClaim> {
      const handlers = group(name);
      if (handlers.done.has(actionId)) return { claimed: false, done: true };
      const lease = handlers.leases.get(actionId);
      const now = Date.now();
      if (lease && lease.until > now) return { claimed: false, done: false };
      handlers.leases.set(actionId, { token, until: now + leaseMs });
      const run = (handlers.runs.get(actionId) ?? 0) + 1;
      handlers.runs.set(actionId, run);
      return { claimed: true, run };
    },
    async renewHandler(name, actionId, token, leaseMs) {
      const lease = group(name).leases.get(actionId);
      const now = Date.now();
      if (!lease || lease.token !== token || lease.until <= now) return false;
      lease.until = now + leaseMs;
      return true;
    },
    async finishHandler(name, actionId, token, done) {
      const handlers = group(name);
      if (handlers.leases.get(actionId)?.token === token) handlers.leases.delete(actionId);
      if (done) {
        handlers.done.add(actionId);
        handlers.todo.delete(actionId);
      }
    },
    async handlerRuns(name, actionId): Promise<HandlerRuns> {
      const handlers = groups.get(name);
      return { runs: handlers?.runs.get(actionId) ?? 0, done: handlers?.done.has(actionId) ?? false };
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
    },
  };
}
