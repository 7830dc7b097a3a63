// Deliveries as the service sends them (the spec's fields), for the ledger's tests.
import type { WebhookEvent } from '../../src/webhooks/index.js';

let count = 0;
const START = Date.parse('2026-03-01T09:00:00.000Z');

/** A delivery of `kind` with `data`; a fresh delivery_id and a timestamp one second after the previous one unless given. */
export function delivery(kind: string, data: Record<string, unknown>, options: { deliveryId?: string; timestamp?: string } = {}): WebhookEvent {
  count += 1;
  return {
    event: kind,
    version: '1.0',
    delivery_id: options.deliveryId ?? `delivery-${count}-${Math.random().toString(36).slice(2)}`,
    timestamp: options.timestamp ?? new Date(START + count * 1000).toISOString(),
    data,
  } as WebhookEvent;
}

export const proposed = (actionId: string | number, options: { kind?: string; runId?: string | number; timestamp?: string } = {}) =>
  delivery('action.approval_required', { action_id: actionId, run_id: options.runId ?? 'run-1', kind: options.kind ?? 'send_email', proposal: { to: 'lp@example.com' } }, options);
export const approved = (actionId: string | number, options: { kind?: string; runId?: string } = {}) =>
  delivery('action.approved', { action_id: actionId, run_id: options.runId ?? 'run-1', kind: options.kind ?? 'send_email', result: { sent: true } });
export const rejected = (actionId: string | number, options: { kind?: string; runId?: string } = {}) =>
  delivery('action.rejected', { action_id: actionId, run_id: options.runId ?? 'run-1', kind: options.kind ?? 'send_email', reason: 'Not now' });
export const expired = (actionId: string | number, options: { kind?: string } = {}) =>
  delivery('action.expired', { action_id: actionId, action_type: options.kind ?? 'send_email', expired_at: '2026-03-02T09:00:00.000Z', expiry_hours: 24 });

/** The decision each decision event carries. */
export const DECISIONS = {
  approved: { status: 'approved', result: { sent: true } },
  rejected: { status: 'rejected', reason: 'Not now' },
  expired: { status: 'expired', expiredAt: '2026-03-02T09:00:00.000Z', expiryHours: 24 },
} as const;

export const DECIDE = { approved, rejected, expired } as const;
export type DecisionKind = keyof typeof DECIDE;
