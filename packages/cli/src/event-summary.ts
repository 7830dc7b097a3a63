// What an action.* or credit.* event says, in a few words (`svc-sdk listen` and `trigger`
// print it beside each delivery), so an action's sequence reads as one line per event: its id and
// the status the event gives it. The words come from the network: escaped before printing.
import { escapeControl } from './terminal-text.js';

/**
 * A few words on what the event tells (an action's id and status, a balance), or `undefined` for other kinds.
 *
 * @param kind The event's kind.
 * @param data The event's data, as delivered (a missing field reads `?`).
 */
export function summarizeEvent(kind: string, data: unknown): string | undefined {
  const field = (name: string) => {
    const value = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[name] : undefined;
    return escapeControl(typeof value === 'string' ? value : JSON.stringify(value) ?? '?');
  };
  const of = () => `(${field('kind')}, run ${field('run_id')})`;
  switch (kind) {
    case 'action.approval_required':
      return `action ${field('action_id')} pending ${of()}`;
    case 'action.approved':
      return `action ${field('action_id')} approved ${of()}`;
    case 'action.rejected':
      return `action ${field('action_id')} rejected ${of()}: ${field('reason')}`;
    case 'action.expired':
      return `action ${field('action_id')} expired (${field('action_type')}, after ${field('expiry_hours')} h)`;
    case 'credit.low':
      return `credits ${field('balance')}, low (threshold ${field('threshold')})`;
    case 'credit.exhausted':
      return `credits ${field('balance')}, exhausted: tool calls are blocked`;
    case 'credit.granted':
      return `credits +${field('amount')} → ${field('new_balance')}`;
    default:
      return undefined;
  }
}
