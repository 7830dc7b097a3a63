import { WEBHOOK_EVENT_KINDS, type EventKind } from '../webhooks/event-kinds.js';
import { serviceJson } from './service-json.js';

/** Sample `data` for every event kind the spec names, with the fields it lists (made-up values). */
export const SAMPLE_EVENT_DATA: Readonly<Record<(typeof WEBHOOK_EVENT_KINDS)[number], Record<string, unknown>>> = {
  'document.uploaded': { room_id: 1, document_id: 1, filename: 'memo.txt', uploader_id: 1 },
  'credit.low': { balance: 90, threshold: 100 },
  'credit.exhausted': { balance: 0 },
  'credit.granted': { amount: 500, new_balance: 590, note: 'Monthly top-up — 500 €' },
  'action.approval_required': { action_id: 'act_1', run_id: 'run_1', kind: 'send_email', proposal: { to: 'lp@example.com' } },
  'action.approved': { action_id: 'act_1', run_id: 'run_1', kind: 'send_email', result: { sent: true } },
  'action.rejected': { action_id: 'act_1', run_id: 'run_1', kind: 'send_email', reason: 'Not now' },
  'action.expired': { action_id: 'act_1', action_type: 'send_email', expired_at: '2026-01-02T00:00:00.000Z', expiry_hours: 24 },
  'job.completed': { run_id: 'run_1', agent_name: 'diligence', output: { summary: 'Done' } },
  'job.failed': { run_id: 'run_1', agent_name: 'diligence', error: 'Tool raised an exception' },
  'module.enabled': { module: 'crm' },
  'module.disabled': { module: 'crm' },
  'deal.stage_changed': { deal_id: 1, from: 'sourcing', to: 'closing' },
  'capital_call.issued': { capital_call_id: 1, amount: 1_000_000 },
  'covenant.breached': { covenant_id: 1, deal_id: 1 },
  'ping.test': { message: 'ping' },
};

/**
 * The sample data of a kind; `{}` for a kind the spec does not name.
 *
 * @param kind The event kind.
 */
export function sampleEventData(kind: EventKind): Record<string, unknown> {
  return { ...(SAMPLE_EVENT_DATA as Record<string, Record<string, unknown>>)[kind] };
}

/**
 * The spec's delivery envelope, serialized once: every attempt sends these exact bytes. Written as
 * many servers write JSON (spaces after separators, non-ASCII escaped), never as JSON.stringify
 * would, so a receiver that re-serializes the parsed body fails here as in production.
 *
 * @param kind The event kind, the envelope's `event`.
 * @param data The event's `data`.
 * @param deliveryId The envelope's `delivery_id`; a new UUID when omitted.
 */
export function buildEventBody(kind: EventKind, data: Record<string, unknown>, deliveryId = crypto.randomUUID()): string {
  return serviceJson({ event: kind, version: '1.0', delivery_id: deliveryId, timestamp: new Date().toISOString(), data });
}
