// The service's side of agent actions, played by the emulator: an agent's write tool proposes an
// action (action.approval_required), the GP approves, rejects, or lets it expire on the emulator's
// clock after its kind's window, each with exactly the interface's fields; every proposal is a tool
// call that consumes credits, with credit.low at the interface's threshold and credit.exhausted
// blocking the call. The interface has no operation for any of it: these are test controls.
import type { EventKind } from '../webhooks/event-kinds.js';

/** An action as the emulated service holds it (snake_case, as its events name the fields). */
export interface EmulatorAction {
  readonly action_id: string;
  readonly run_id: string;
  readonly kind: string;
  readonly proposal: unknown;
  readonly status: 'pending' | 'approved' | 'rejected' | 'expired';
  /** When it was proposed, on the emulator's clock (ISO 8601). */
  readonly proposed_at: string;
  /** Its kind's window. */
  readonly expiry_hours: number;
  /** When it expires if no one decides (ISO 8601, the emulator's clock). */
  readonly expires_at: string;
  readonly result?: unknown;
  readonly reason?: string;
  readonly expired_at?: string;
}

/** Settings of the emulated agents (`createEmulator({ actions })`). */
export interface EmulatorActionsOptions {
  /**
   * Expiry windows in hours: `default` (24, the interface's) and per kind. The interface gives
   * write-sensitive actions longer windows without saying how long; the emulator assumes 72 h for
   * `capital_call` and `transaction` unless told otherwise here.
   */
  windowsHours?: { default?: number | undefined; kinds?: Readonly<Record<string, number>> | undefined } | undefined;
  /** The org's credit balance at the start. Default 1000. */
  credits?: number | undefined;
  /** Credits one proposal (one write-tool call) consumes. Default 1. */
  creditsPerProposal?: number | undefined;
}

/** Thrown by `propose` when the credits are exhausted: the tool call is blocked, and `credit.exhausted` fired. */
export class CreditsExhaustedError extends Error {
  override readonly name = 'CreditsExhaustedError';
  /**
   * Made by `propose` when the balance cannot pay for the tool call.
   *
   * @param balance The credit balance when the call was blocked.
   */
  constructor(readonly balance: number) {
    super(`[svc-sdk] emulator.actions.propose: the tool call is blocked, the credits are exhausted (balance ${balance}); grant credits with emulator.actions.grant(amount)`);
  }
}

/** The emulator's agents and GP: `emulator.actions`. */
export interface EmulatorActions {
  /**
   * An agent proposes a side effect: fires `action.approval_required`; resolves with the action and its `action_id`.
   *
   * @param input The action's `kind` (such as `send_email`), its `runId` (default a new `run_<n>`) and its `proposal` (default `{}`).
   */
  propose(input: { kind: string; runId?: string | number | undefined; proposal?: unknown }): Promise<EmulatorAction>;
  /**
   * The GP approves and the action is executed: fires `action.approved` with `result`.
   *
   * @param actionId The pending action's `action_id`.
   * @param result What executing the action gave. Default `{}`.
   */
  approve(actionId: string, result?: unknown): Promise<EmulatorAction>;
  /**
   * The GP rejects: fires `action.rejected` with `reason`.
   *
   * @param actionId The pending action's `action_id`.
   * @param reason Why the GP rejected it.
   */
  reject(actionId: string, reason: string): Promise<EmulatorAction>;
  /**
   * The action expires now (as it does by itself after its window): fires `action.expired`.
   *
   * @param actionId The pending action's `action_id`.
   */
  expire(actionId: string): Promise<EmulatorAction>;
  /**
   * An action as the emulator holds it.
   *
   * @param actionId The action's `action_id`.
   */
  get(actionId: string): EmulatorAction | undefined;
  /**
   * An agent run ends: fires `job.completed` with `output`, or `job.failed` with `error` when given one.
   *
   * @param runId The run's `run_id`.
   * @param outcome The `agentName` (default `'agent'`), and the `output` (default `{}`) or the `error` it failed with.
   */
  finishRun(runId: string | number, outcome: { agentName?: string; output?: unknown; error?: string }): Promise<void>;
  /**
   * An admin tops up credits: fires `credit.granted`; resolves with the new balance.
   *
   * @param amount The credits to add, more than 0.
   * @param note The grant's `note`. Default `''`.
   */
  grant(amount: number, note?: string): Promise<number>;
  /** The credit balance now. */
  readonly balance: number;
}

const HOUR_MS = 3_600_000;
/** The interface's threshold: credit.low fires at or below it. */
const LOW_CREDITS = 100;
const WRITE_SENSITIVE_HOURS = { capital_call: 72, transaction: 72 };

interface ActionsContext {
  fire(kind: EventKind, data: Record<string, unknown>): unknown;
  now(): number;
  later(delayMs: number, run: () => Promise<void>): void;
}

/** The emulator's `actions`, over its deliveries and clock; `reset()` forgets them. */
export function createEmulatorActions(context: ActionsContext, options: EmulatorActionsOptions = {}): EmulatorActions & { reset(): void } {
  const hours = { default: options.windowsHours?.default ?? 24, kinds: { ...WRITE_SENSITIVE_HOURS, ...options.windowsHours?.kinds } };
  for (const [name, value] of [['default', hours.default], ...Object.entries(hours.kinds)] as const) {
    if (!(typeof value === 'number' && value > 0 && Number.isFinite(value))) throw new TypeError(`[svc-sdk] createEmulator: actions.windowsHours ${name} must be a positive number of hours`);
  }
  const start = options.credits ?? 1000;
  const cost = options.creditsPerProposal ?? 1;
  if (!(Number.isFinite(start) && start >= 0)) throw new TypeError('[svc-sdk] createEmulator: actions.credits must be 0 or more credits');
  if (!(Number.isFinite(cost) && cost >= 0)) throw new TypeError('[svc-sdk] createEmulator: actions.creditsPerProposal must be 0 or more credits');
  const actions = new Map<string, EmulatorAction>();
  let balance = start;
  let count = 0;
  let generation = 0;
  const stamp = () => new Date(context.now()).toISOString();

  const pending = (verb: string, actionId: string) => {
    const action = actions.get(String(actionId));
    if (!action) throw new TypeError(`[svc-sdk] emulator.actions.${verb}: no action ${JSON.stringify(actionId)} (propose one first)`);
    if (action.status !== 'pending') throw new TypeError(`[svc-sdk] emulator.actions.${verb}: action ${action.action_id} is ${action.status}, not pending: the service moves only pending actions`);
    return action;
  };
  const settle = async (action: EmulatorAction, next: Partial<EmulatorAction> & Pick<EmulatorAction, 'status'>, kind: EventKind, data: Record<string, unknown>) => {
    const settled = { ...action, ...next };
    actions.set(action.action_id, settled);
    await context.fire(kind, data);
    return settled;
  };
  const expire = (action: EmulatorAction) => {
    const expiredAt = stamp();
    return settle(action, { status: 'expired', expired_at: expiredAt }, 'action.expired', {
      action_id: action.action_id,
      action_type: action.kind,
      expired_at: expiredAt,
      expiry_hours: action.expiry_hours,
    });
  };

  return {
    get balance() {
      return balance;
    },
    async propose({ kind, runId, proposal = {} }) {
      if (typeof kind !== 'string' || kind === '') throw new TypeError('[svc-sdk] emulator.actions.propose: kind must be a non-empty string, e.g. "send_email"');
      // A tool call: blocked when the credits cannot pay for it.
      if (balance - cost < 0 || balance <= 0) {
        await context.fire('credit.exhausted', { balance });
        throw new CreditsExhaustedError(balance);
      }
      balance -= cost;
      count += 1;
      const expiryHours = hours.kinds[kind as keyof typeof hours.kinds] ?? hours.default;
      const now = context.now();
      const action: EmulatorAction = {
        action_id: `act_${count}`,
        run_id: runId === undefined ? `run_${count}` : String(runId),
        kind,
        proposal,
        status: 'pending',
        proposed_at: new Date(now).toISOString(),
        expiry_hours: expiryHours,
        expires_at: new Date(now + expiryHours * HOUR_MS).toISOString(),
      };
      actions.set(action.action_id, action);
      const born = generation;
      context.later(expiryHours * HOUR_MS, async () => {
        const current = actions.get(action.action_id);
        if (born === generation && current?.status === 'pending') await expire(current);
      });
      await context.fire('action.approval_required', { action_id: action.action_id, run_id: action.run_id, kind, proposal });
      if (balance <= LOW_CREDITS) await context.fire('credit.low', { balance, threshold: LOW_CREDITS });
      if (balance === 0) await context.fire('credit.exhausted', { balance });
      return action;
    },
    approve(actionId, result = {}) {
      const action = pending('approve', actionId);
      return settle(action, { status: 'approved', result }, 'action.approved', { action_id: action.action_id, run_id: action.run_id, kind: action.kind, result });
    },
    reject(actionId, reason) {
      const action = pending('reject', actionId);
      if (typeof reason !== 'string') throw new TypeError('[svc-sdk] emulator.actions.reject: reason must be a string');
      return settle(action, { status: 'rejected', reason }, 'action.rejected', { action_id: action.action_id, run_id: action.run_id, kind: action.kind, reason });
    },
    async expire(actionId) {
      return expire(pending('expire', actionId));
    },
    get(actionId) {
      return actions.get(String(actionId));
    },
    async finishRun(runId, { agentName = 'agent', output = {}, error }) {
      await (error === undefined
        ? context.fire('job.completed', { run_id: String(runId), agent_name: agentName, output })
        : context.fire('job.failed', { run_id: String(runId), agent_name: agentName, error }));
    },
    async grant(amount, note = '') {
      if (!(typeof amount === 'number' && Number.isFinite(amount) && amount > 0)) throw new TypeError('[svc-sdk] emulator.actions.grant: amount must be a positive number of credits');
      balance += amount;
      await context.fire('credit.granted', { amount, new_balance: balance, note });
      return balance;
    },
    reset() {
      actions.clear();
      balance = start;
      count = 0;
      generation += 1;
    },
  };
}
