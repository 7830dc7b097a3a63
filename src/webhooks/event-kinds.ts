/** Every event kind the service documents, in the spec's order. */
export const WEBHOOK_EVENT_KINDS = [
  'document.uploaded',
  'credit.low',
  'credit.exhausted',
  'credit.granted',
  'action.approval_required',
  'action.approved',
  'action.rejected',
  'action.expired',
  'job.completed',
  'job.failed',
  'module.enabled',
  'module.disabled',
  'deal.stage_changed',
  'capital_call.issued',
  'covenant.breached',
  'ping.test',
] as const;

/** An event kind the spec names. */
export type KnownEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** An event kind: one the spec names, or a newer one the service may add (autocomplete keeps the known). */
export type EventKind = KnownEventKind | (string & {});
