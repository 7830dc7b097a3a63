// onDecision's side: one loop per handler name and process, taking decided actions from the store's
// queue for that name. Each run is a claim with a lease (renewed while the handler runs) and ends
// recorded done; a process that dies mid-run leaves its lease to expire, and another process runs
// the handler again, told by `run` that it is a repeat: at least once, and a second time only
// after a run that could not record itself done — the inbox's promise.
import type { LedgerStore } from './store.js';
import type { ActionDecision, ActionRecord, DecisionHandler, DecisionSubscription } from './types.js';

interface HandlerSettings {
  name: string;
  leaseMs: number;
  pollMs: number;
  retryDelayMs: number;
  onError: (error: unknown, action: ActionRecord) => void;
}

/** How many queued decisions one pass looks at (claimed ones by other processes are skipped). */
const BATCH = 500;

/** Starts the loop of one handler; `close()` stops it once the run under way ended. */
export function runDecisionHandler(store: LedgerStore, get: (actionId: string) => Promise<ActionRecord | undefined>, handler: DecisionHandler, settings: HandlerSettings): DecisionSubscription {
  const { name, leaseMs, pollMs, retryDelayMs, onError } = settings;
  let closed = false;
  // Set at the start of each pass, and by a notification: one heard mid-pass means no sleep after it.
  let heard: boolean;
  let wake: (() => void) | undefined;
  const retryAt = new Map<string, number>();
  const unsubscribe = store.subscribe(() => {
    heard = true;
    wake?.();
  });
  // A wake of a sleep that already ended (a later notification, close) resolves nothing new: no need to forget it.
  const sleep = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const runOne = async (actionId: string, token: string, run: number) => {
    const action = await get(actionId);
    // Queued only when decided, so a record without a decision is a store edited by hand: nothing to run.
    if (action?.decision === undefined) return store.finishHandler(name, actionId, token, true);
    const renew = setInterval(() => void store.renewHandler(name, actionId, token, leaseMs).catch(() => undefined), leaseMs / 3);
    try {
      await handler(action as ActionRecord & { decision: ActionDecision }, { run });
    } catch (error) {
      try {
        onError(error, action);
      } catch {
        // An observer that throws must not change the handler's fate.
      }
      retryAt.set(actionId, Date.now() + retryDelayMs);
      return store.finishHandler(name, actionId, token, false);
    } finally {
      clearInterval(renew);
    }
    retryAt.delete(actionId);
    return store.finishHandler(name, actionId, token, true);
  };

  const loop = (async () => {
    while (!closed) {
      heard = false;
      let ran = false;
      let failed = false;
      try {
        for (const actionId of await store.handlerTodo(name, BATCH)) {
          if (closed) break;
          if ((retryAt.get(actionId) ?? 0) > Date.now()) continue;
          const token = crypto.randomUUID();
          const claim = await store.claimHandler(name, actionId, token, leaseMs);
          if (!claim.claimed) continue;
          ran = true;
          await runOne(actionId, token, claim.run);
        }
      } catch {
        // The store is unreachable (Redis restarting): what was claimed stays claimed until its lease ends; try again after pollMs.
        failed = true;
      }
      if ((failed || (!ran && !heard)) && !closed) await sleep();
    }
  })();

  return {
    async close() {
      closed = true;
      unsubscribe();
      wake?.();
      await loop;
    },
  };
}
