// waitForDecision's side: the waits of one ledger, told by the store's notifications (a hint, fast)
// and by reading the store every pollMs (the bound on a notification that never came: pub/sub
// delivers at most once, and a Redis restart or a dropped connection loses what was sent meanwhile).
import type { LedgerStore } from './store.js';
import type { ActionDecision, ActionRecord, DecisionTimeout } from './types.js';

interface Waiter {
  resolve(decision: ActionDecision): void;
  /** Ends the wait's timer and abort listener and takes it out of the waits, leaving it unresolved. */
  end(): void;
}

/** The waits of one ledger: one notification subscription and one poll timer for all of them. */
export function createWaiters(store: LedgerStore, get: (actionId: string) => Promise<ActionRecord | undefined>, pollMs: number) {
  const waiting = new Map<string, Set<Waiter>>();
  let unsubscribe: (() => void) | undefined;
  let poll: ReturnType<typeof setInterval> | undefined;

  const check = async (actionId: string) => {
    if (!waiting.has(actionId)) return;
    // A store that cannot be read now (Redis restarting) is read again at the next poll.
    const decision = (await get(actionId).catch(() => undefined))?.decision;
    if (decision === undefined) return;
    for (const waiter of waiting.get(actionId) ?? []) waiter.resolve(decision);
  };
  // Called once per waiter (by its end()), while it is still in its set: the set and the subscription are there.
  const remove = (actionId: string, waiter: Waiter) => {
    const set = waiting.get(actionId)!;
    set.delete(waiter);
    if (set.size === 0) waiting.delete(actionId);
    if (waiting.size > 0) return;
    unsubscribe!();
    unsubscribe = undefined;
    clearInterval(poll);
    poll = undefined;
  };

  return {
    wait(actionId: string, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<ActionDecision | DecisionTimeout> {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const started = Date.now();
        const end = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', aborted);
          remove(actionId, waiter);
        };
        const waiter: Waiter = {
          resolve(decision) {
            end();
            resolve(decision);
          },
          end,
        };
        const aborted = () => {
          end();
          reject(signal!.reason);
        };
        const timer = timeoutMs === undefined ? undefined : setTimeout(() => (end(), resolve({ status: 'timeout', waitedMs: Date.now() - started })), timeoutMs);
        // Not { once: true }: an AbortSignal aborts once, and end() removes the listener however the wait ends.
        signal?.addEventListener('abort', aborted);
        // Listening before the first read: a decision committed between the two is heard.
        const set = waiting.get(actionId) ?? new Set<Waiter>();
        set.add(waiter);
        waiting.set(actionId, set);
        unsubscribe ??= store.subscribe((decided) => void check(decided));
        poll ??= setInterval(() => {
          for (const id of waiting.keys()) void check(id);
        }, pollMs);
        void check(actionId);
      });
    },
    /** Ends every wait's timers and listeners (the waits themselves stay unresolved: the ledger is closing), so that none keeps the process up. */
    close() {
      for (const set of waiting.values()) for (const waiter of set) waiter.end();
    },
  };
}
