// The public types of svc-sdk/actions: what the ledger knows of an agent's action, a run and the
// credits. No runtime code here.

/** Where an action stands: the interface's table, (none) → pending → approved | rejected | expired. */
export type ActionStatus = 'pending' | 'approved' | 'rejected' | 'expired';

/** A GP's decision on an action (or its expiry), as `waitForDecision` resolves and `onDecision` hears it. */
export type ActionDecision =
  | { readonly status: 'approved'; readonly result: unknown }
  | { readonly status: 'rejected'; readonly reason: string }
  | { readonly status: 'expired'; readonly expiredAt: string; readonly expiryHours: number };

/** What `waitForDecision` resolves with when `timeoutMs` passed before any decision: told apart by its status. */
export interface DecisionTimeout {
  readonly status: 'timeout';
  /** How long it waited, in ms. */
  readonly waitedMs: number;
}

/** When a pending action expires: the service says so only once it has (`action.expired`), so before that it is an estimate. */
export interface ActionExpiry {
  /** ISO 8601 UTC. */
  readonly at: string;
  /** True while the action is pending: its proposal's time plus the kind's window as configured in `windows`, not the service's word. */
  readonly estimated: boolean;
}

/** An action as the ledger knows it. Ids are kept as strings (`7` and `'7'` are one action). */
export interface ActionRecord {
  readonly actionId: string;
  readonly status: ActionStatus;
  /** `kind` of the action.* events (`action_type` of `action.expired`). */
  readonly kind: string;
  /** The agent run that proposed it; `undefined` while only an `action.expired` (which carries none) was seen. */
  readonly runId: string | undefined;
  /** The proposal of `action.approval_required`, once it arrived (a decision may come first). */
  readonly proposal?: unknown;
  /** When it was proposed: the `timestamp` of its `action.approval_required`. */
  readonly proposedAt?: string | undefined;
  /** The decision, once one arrived. */
  readonly decision?: ActionDecision | undefined;
  /** When it was decided: the decision delivery's `timestamp` (`expired_at` for an expiry). */
  readonly decidedAt?: string | undefined;
  /** When it expires (estimated while pending), or expired; none once approved or rejected. */
  readonly expiresAt?: ActionExpiry | undefined;
}

/** A job outcome of a run: one `job.completed` or `job.failed`. */
export type JobOutcome =
  | { readonly status: 'completed'; readonly agentName: string; readonly output: unknown; readonly at: string }
  | { readonly status: 'failed'; readonly agentName: string; readonly error: string; readonly at: string };

/** An agent run: its actions and its job outcomes. */
export interface RunRecord {
  readonly runId: string;
  /** Its actions, oldest proposal first. */
  readonly actions: readonly ActionRecord[];
  /** Its job outcomes in the order of their timestamps. */
  readonly jobs: readonly JobOutcome[];
  /** The newest job outcome, if any. */
  readonly outcome: JobOutcome | undefined;
}

/** The org's credits as the last `credit.*` event told them. */
export interface CreditState {
  /** The last balance told; `undefined` before any `credit.*` event. */
  readonly balance: number | undefined;
  /** At or below the low-credit threshold (100 by the interface, or the `threshold` of `credit.low`). */
  readonly low: boolean;
  /** At 0: tool calls are blocked. */
  readonly exhausted: boolean;
  /** The threshold `credit.low` last named (100 until one did). */
  readonly threshold: number;
  /** Since when the credits are in this state (low, exhausted, or neither): an event's timestamp. */
  readonly since: string | undefined;
  /** The timestamp of the event the balance comes from. */
  readonly updatedAt: string | undefined;
}

/** What `record(event)` did with an event. */
export interface RecordOutcome {
  /**
   * `applied`: the ledger changed; `unchanged`: a new delivery that changes nothing (a
   * proposal seen again, a second decision); `duplicate`: a delivery_id seen before; `ignored`: not an
   * action.*, job.* or credit.* event.
   */
  readonly outcome: 'applied' | 'unchanged' | 'duplicate' | 'ignored';
  /** The action as it stands after the event, for action.* events. */
  readonly action?: ActionRecord | undefined;
}

/** Filter of `ledger.pending(filter)`. */
export interface PendingFilter {
  kind?: string | undefined;
  runId?: string | number | undefined;
  /** Only actions whose estimated expiry is within this many ms from now (already past included). */
  expiringWithinMs?: number | undefined;
}

/** Expiry windows per action kind, for the estimated `expiresAt`. */
export interface ExpiryWindows {
  /** Every kind not in `kinds`. Default 24 h (the interface's default window). */
  defaultMs?: number | undefined;
  /** Per kind, e.g. `{ capital_call: 72 * 3_600_000 }`: the interface gives write-sensitive actions longer windows without saying how long. */
  kinds?: Readonly<Record<string, number>> | undefined;
}

/** Options of `waitForDecision`. */
export interface WaitForDecisionOptions {
  /** Resolve with `{ status: 'timeout' }` after this many ms. Default: wait until the signal aborts. */
  timeoutMs?: number | undefined;
  /** Rejects the wait with the signal's reason when it aborts. */
  signal?: AbortSignal | undefined;
}

/** What an `onDecision` handler is told beside the action. */
export interface DecisionContext {
  /** 1 the first time the handler runs for this action; more when a run before it did not record itself done (its process died, or it threw). */
  readonly run: number;
}

/**
 * A handler of decisions: runs once per decided action across every process sharing the store.
 *
 * @param action The decided action, its `decision` set.
 * @param context Which run this is for the action (`run`: 1 the first time).
 */
export type DecisionHandler = (action: ActionRecord & { readonly decision: ActionDecision }, context: DecisionContext) => unknown;

/** Options of `onDecision`. */
export interface OnDecisionOptions {
  /** Handlers with different names each run once per action. Default `'default'`. */
  name?: string | undefined;
  /** How long a run may go without renewing its claim before another process takes the action over, in ms. Default 30 000. */
  leaseMs?: number | undefined;
  /** How often to look for decisions whose earlier run died (and ones a lost notification hid), in ms. Default 1000. */
  pollMs?: number | undefined;
  /** The wait before a handler that threw runs again, in ms. Default 1000. */
  retryDelayMs?: number | undefined;
  /**
   * Hears what a handler threw (it runs again after `retryDelayMs`). Default `console.warn`.
   *
   * @param error What the handler threw or rejected with.
   * @param action The action the handler was running for.
   */
  onError?: ((error: unknown, action: ActionRecord) => void) | undefined;
}

/** A running `onDecision` subscription. */
export interface DecisionSubscription {
  /** Stops taking decisions and resolves once the handler runs under way finished. */
  close(): Promise<void>;
}

/** How often the handler of `name` ran for an action, and whether a run recorded itself done. */
export interface HandlerRuns {
  readonly runs: number;
  readonly done: boolean;
}
