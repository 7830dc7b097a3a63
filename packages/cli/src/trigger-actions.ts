// `svc-sdk trigger action.* | credit.granted` through a running emulator: the sequence as the
// emulator's agents and GP play it (emulator.actions over its control routes), not a lone sample.
// action.approval_required proposes; a decision (approved, rejected, expired) proposes first and
// then decides that action, with its real id, or decides an existing proposal (--action <id>);
// credit.granted tops the credits up. Each event the emulator fires on the way (credit.low too,
// when a proposal brings the balance down to it) is printed with its deliveries.
import { CONTROL_ACTIONS_PATH, CONTROL_CREDITS_PATH } from 'svc-sdk/internal';
import { escapeControl } from './terminal-text.js';
import { callEmulator, notAnEmulator, printFired, type EmulatorTarget, type FiredDeliveries } from './emulator-control.js';
import { summarizeEvent } from './event-summary.js';
import { println } from './signals.js';

/** The kinds `trigger` plays as the emulator does instead of firing a lone sample. */
export const SEQUENCE_KINDS = ['action.approval_required', 'action.approved', 'action.rejected', 'action.expired', 'credit.granted'] as const;

/** The decisions, by event kind, and their control route (`--action <id>` plays one on an existing proposal). */
export const DECISIONS: Readonly<Record<string, string>> = { 'action.approved': 'approve', 'action.rejected': 'reject', 'action.expired': 'expire' };

interface ControlAnswer {
  data?: { action?: { action_id: string }; balance?: number; events?: Array<{ event: string; data: unknown; deliveries: FiredDeliveries }> };
  events?: Array<{ event: string; data: unknown; deliveries: FiredDeliveries }>;
  error?: string;
  /** Set on the control routes' own refusals (no such action, not pending, a bad field); a 404 without it is no control route. */
  field?: string;
}

/**
 * Plays `kind` through the emulator: resolves with the exit code once every event it fired is printed.
 *
 * @param kind One of SEQUENCE_KINDS.
 * @param data The event's data (`--data`, else the kind's sample): the proposal's `kind`, `run_id` and `proposal`, a decision's `result` or `reason`, a grant's `amount` and `note`.
 * @param actionId `--action`: decide this existing proposal instead of proposing one.
 * @param target The running emulator.
 */
export async function playAction(kind: string, data: Record<string, unknown>, actionId: string | undefined, target: EmulatorTarget): Promise<number> {
  if (kind === 'credit.granted') {
    const granted = await step(target, `${CONTROL_CREDITS_PATH}/grant`, { amount: data['amount'], note: data['note'] });
    return typeof granted === 'number' ? granted : 0;
  }
  let id = actionId;
  if (id === undefined) {
    const proposed = await step(target, CONTROL_ACTIONS_PATH, { kind: data['kind'] ?? data['action_type'], run_id: data['run_id'], proposal: data['proposal'] ?? {} });
    if (typeof proposed === 'number') return proposed;
    id = proposed;
    if (kind === 'action.approval_required') return 0;
  }
  const body = kind === 'action.approved' ? { result: data['result'] ?? {} } : kind === 'action.rejected' ? { reason: data['reason'] } : undefined;
  const decided = await step(target, `${CONTROL_ACTIONS_PATH}/${encodeURIComponent(id)}/${DECISIONS[kind]}`, body);
  return typeof decided === 'number' ? decided : 0;
}

/** One control call: prints the events it fired; resolves with the action id it answered (or ''), or exit code 1. */
async function step(target: EmulatorTarget, path: string, body: unknown): Promise<string | number> {
  const called = await callEmulator<ControlAnswer>(target, path, body);
  if (typeof called === 'number') return called;
  const { status, answer, response } = called;
  for (const { event, data, deliveries } of answer?.data?.events ?? answer?.events ?? []) {
    printFired(target.io, target, `${escapeControl(event)} · ${summarizeEvent(event, data) ?? ''}`, deliveries);
  }
  if (status >= 200 && status < 300 && answer?.data !== undefined) return answer.data.action?.action_id ?? '';
  if (typeof answer?.error === 'string' && (status === 402 || typeof answer.field === 'string')) {
    println(target.io.stderr, `[svc-sdk] the emulator at ${target.baseUrl.origin} refused: ${escapeControl(answer.error)}`);
    return 1;
  }
  return notAnEmulator(target, path, response);
}
