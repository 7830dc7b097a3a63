// The one home of the action state machine: the interface's table, (none) → pending → approved |
// rejected | expired, with terminal states final, applied to deliveries that may come twice, late
// and in any order. Pure functions over plain records: every store runs this same code and only
// makes its result atomic (store.ts).
import type { WebhookEvent } from '../webhooks/events.js';
import type { ActionDecision, CreditState, JobOutcome } from './types.js';

/** An action as stored: what the events told, without the expiry estimate (computed when read, from the reader's windows). */
export interface StoredAction {
  actionId: string;
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  kind: string;
  runId: string | undefined;
  proposal?: unknown;
  proposedAt?: string;
  decision?: ActionDecision;
  decidedAt?: string;
}

/** An action.* event, its fields read and normalised (ids as strings, `kind` from `action_type`). */
export type ActionEvent =
  | { type: 'proposed'; actionId: string; kind: string; runId: string; proposal: unknown; at: string }
  | { type: 'decided'; actionId: string; kind: string; runId: string | undefined; decision: ActionDecision; at: string };

/** A job.* event, read. */
export interface JobEvent {
  runId: string;
  outcome: JobOutcome;
}

/** A credit.* event, read. */
export type CreditEvent =
  | { type: 'low'; balance: number; threshold: number; at: string }
  | { type: 'exhausted'; balance: number; at: string }
  | { type: 'granted'; balance: number; at: string };

/** What an event is to the ledger: an action's, a run's job, the credits', or nothing. */
export type LedgerEvent = { area: 'action'; event: ActionEvent } | { area: 'job'; event: JobEvent } | { area: 'credit'; event: CreditEvent } | undefined;

/** The interface's low-credit threshold: credit.low fires at or below it. */
export const LOW_CREDIT_THRESHOLD = 100;

/**
 * Reads an event for the ledger. An action.*, job.* or credit.* event without the fields the
 * interface names is a TypeError naming the field: recorded as it is, it would corrupt the state,
 * and thrown, the inbox keeps it (retried, then a dead letter) rather than losing it.
 */
export function readLedgerEvent(event: WebhookEvent): LedgerEvent {
  const kind = event.event as string;
  const data = event.data as Record<string, unknown>;
  const field = new FieldReader(kind, data);
  const at = event.timestamp;
  switch (kind) {
    case 'action.approval_required':
      return { area: 'action', event: { type: 'proposed', actionId: field.id('action_id'), kind: field.text('kind'), runId: field.id('run_id'), proposal: data.proposal, at } };
    case 'action.approved':
      return { area: 'action', event: { type: 'decided', actionId: field.id('action_id'), kind: field.text('kind'), runId: field.id('run_id'), decision: { status: 'approved', result: data.result }, at } };
    case 'action.rejected':
      return {
        area: 'action',
        event: { type: 'decided', actionId: field.id('action_id'), kind: field.text('kind'), runId: field.id('run_id'), decision: { status: 'rejected', reason: String(data.reason ?? '') }, at },
      };
    case 'action.expired': {
      // No kind and no run_id here, unlike the other three: kind is its action_type, run_id comes from an earlier event.
      const expiredAt = field.text('expired_at');
      return {
        area: 'action',
        event: { type: 'decided', actionId: field.id('action_id'), kind: field.text('action_type'), runId: undefined, decision: { status: 'expired', expiredAt, expiryHours: field.number('expiry_hours') }, at: expiredAt },
      };
    }
    case 'job.completed':
      return { area: 'job', event: { runId: field.id('run_id'), outcome: { status: 'completed', agentName: field.text('agent_name'), output: data.output, at } } };
    case 'job.failed':
      return { area: 'job', event: { runId: field.id('run_id'), outcome: { status: 'failed', agentName: field.text('agent_name'), error: String(data.error ?? ''), at } } };
    case 'credit.low':
      return { area: 'credit', event: { type: 'low', balance: field.number('balance'), threshold: field.number('threshold'), at } };
    case 'credit.exhausted':
      return { area: 'credit', event: { type: 'exhausted', balance: field.number('balance'), at } };
    case 'credit.granted':
      return { area: 'credit', event: { type: 'granted', balance: field.number('new_balance'), at } };
  }
  // Any other event, or a newer action.*, job.* or credit.* kind: not one this version knows how to apply.
  return undefined;
}

class FieldReader {
  constructor(
    readonly kind: string,
    readonly data: Record<string, unknown>,
  ) {}

  id(name: string): string {
    const value = this.data[name];
    // Number.isFinite is false for anything but a number (it does not convert).
    if ((typeof value === 'string' && value !== '') || Number.isFinite(value)) return String(value);
    return this.#fail(name, 'a non-empty string or a number');
  }

  text(name: string): string {
    const value = this.data[name];
    return typeof value === 'string' && value !== '' ? value : this.#fail(name, 'a non-empty string');
  }

  number(name: string): number {
    const value = this.data[name];
    return Number.isFinite(value) ? (value as number) : this.#fail(name, 'a number');
  }

  #fail(name: string, what: string): never {
    throw new TypeError(`[svc-sdk] actions ledger: ${this.kind} has no usable data.${name} (it must be ${what}); the event was not recorded`);
  }
}

/**
 * An action after one event: the new record, or `undefined` when the event changes nothing. A
 * proposal starts an action not seen yet; seen again (another delivery of it) it changes nothing.
 * After its decision (deliveries come in any order) it keeps the decision and adds only what the
 * decision did not carry: the proposal, its time, and the run id that action.expired never names.
 * A decision applies to an action not seen yet or pending; terminal states are final.
 */
export function applyActionEvent(current: StoredAction | undefined, event: ActionEvent): StoredAction | undefined {
  if (event.type === 'proposed') {
    if (current === undefined) return { actionId: event.actionId, status: 'pending', kind: event.kind, runId: event.runId, proposal: event.proposal, proposedAt: event.at };
    if (current.proposedAt !== undefined) return undefined;
    return { ...current, runId: current.runId ?? event.runId, proposal: event.proposal, proposedAt: event.at };
  }
  const decided = { status: event.decision.status, decision: event.decision, decidedAt: event.at };
  if (current === undefined) return { actionId: event.actionId, kind: event.kind, runId: event.runId, ...decided };
  // Pending means proposed: its run id stays (action.expired names none).
  return current.status === 'pending' ? { ...current, ...decided } : undefined;
}

/** A run's job outcomes after one more, in timestamp order (the same delivery is never applied twice: the store deduplicates). */
export function applyJobEvent(current: readonly JobOutcome[] | undefined, event: JobEvent): JobOutcome[] {
  return [...(current ?? []), event.outcome].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/**
 * The credits after one event, or `undefined` when it is older than what is known (a late retry
 * must not bring back an old balance). Two events of the same moment (timestamps have a finite
 * resolution, deliveries no order) are put in order by what they do: spending only lowers the
 * balance, so a credit.low or credit.exhausted with a higher balance than the one known came
 * first; a grant, the one event that raises it, applies.
 */
export function applyCreditEvent(current: CreditState | undefined, event: CreditEvent): CreditState | undefined {
  if (current?.updatedAt !== undefined) {
    const age = Date.parse(current.updatedAt) - Date.parse(event.at);
    if (age > 0 || (age === 0 && event.type !== 'granted' && event.balance > current.balance!)) return undefined;
  }
  const threshold = event.type === 'low' ? event.threshold : (current?.threshold ?? LOW_CREDIT_THRESHOLD);
  const exhausted = event.type === 'exhausted' || event.balance <= 0;
  // credit.low is the service's word that the balance is low, whatever the numbers it carries.
  const low = exhausted || event.type === 'low' || event.balance <= threshold;
  const same = current !== undefined && current.low === low && current.exhausted === exhausted;
  return { balance: event.balance, low, exhausted, threshold, since: same ? current.since : event.at, updatedAt: event.at };
}

/** The credits before any credit.* event. */
export const NO_CREDITS: CreditState = { balance: undefined, low: false, exhausted: false, threshold: LOW_CREDIT_THRESHOLD, since: undefined, updatedAt: undefined };
