import type { KnownEventKind } from './event-kinds.js';

// Data shapes as the spec's Events table names them. Where the spec gives no type (every kind but
// document.uploaded), the type is the plain reading of the field; ids the spec leaves untyped are
// `string | number`. Fields are not checked at run time: a newer service may add or change them.

/** `data` of `document.uploaded`: a document was uploaded to a room. */
export interface DocumentUploadedData {
  room_id: number;
  document_id: number;
  filename: string;
  uploader_id: number;
}
/** `data` of `credit.low`: the balance dropped to the threshold (100 credits) or below. */
export interface CreditLowData {
  balance: number;
  threshold: number;
}
/** `data` of `credit.exhausted`: the balance reached 0 and the tool call was blocked. */
export interface CreditExhaustedData {
  balance: number;
}
/** `data` of `credit.granted`: an admin topped up credits. */
export interface CreditGrantedData {
  amount: number;
  new_balance: number;
  note: string;
}
/** `data` of `action.approval_required`: an agent proposed a side effect. */
export interface ActionApprovalRequiredData {
  action_id: string | number;
  run_id: string | number;
  kind: string;
  proposal: unknown;
}
/** `data` of `action.approved`: the GP approved and executed a proposed action. */
export interface ActionApprovedData {
  action_id: string | number;
  run_id: string | number;
  kind: string;
  result: unknown;
}
/** `data` of `action.rejected`: the GP rejected a proposed action. */
export interface ActionRejectedData {
  action_id: string | number;
  run_id: string | number;
  kind: string;
  reason: string;
}
/** `data` of `action.expired`: a pending action expired after its window. */
export interface ActionExpiredData {
  action_id: string | number;
  action_type: string;
  expired_at: string;
  expiry_hours: number;
}
/** `data` of `job.completed`: an AI-heavy tool returned. */
export interface JobCompletedData {
  run_id: string | number;
  agent_name: string;
  output: unknown;
}
/** `data` of `job.failed`: an AI-heavy tool raised an exception. */
export interface JobFailedData {
  run_id: string | number;
  agent_name: string;
  error: string;
}
/** `data` of `module.enabled` and `module.disabled`. */
export interface ModuleToggledData {
  module: string;
}

/** The `data` type of each event kind the spec names (fields the spec does not show: an open record). */
export interface WebhookEventDataMap {
  'document.uploaded': DocumentUploadedData;
  'credit.low': CreditLowData;
  'credit.exhausted': CreditExhaustedData;
  'credit.granted': CreditGrantedData;
  'action.approval_required': ActionApprovalRequiredData;
  'action.approved': ActionApprovedData;
  'action.rejected': ActionRejectedData;
  'action.expired': ActionExpiredData;
  'job.completed': JobCompletedData;
  'job.failed': JobFailedData;
  'module.enabled': ModuleToggledData;
  'module.disabled': ModuleToggledData;
  'deal.stage_changed': Record<string, unknown>;
  'capital_call.issued': Record<string, unknown>;
  'covenant.breached': Record<string, unknown>;
  'ping.test': Record<string, unknown>;
}

/** The delivery envelope every event shares. */
export interface WebhookEnvelope<K extends string, D> {
  /** The event kind. */
  event: K;
  /** The payload version (`'1.0'` today). */
  version: string;
  /** Stable across every retry of one delivery: deduplicate on it. */
  delivery_id: string;
  /** ISO 8601 UTC, millisecond precision; a timestamp without `Z` or an offset is refused (`invalid_timestamp`). */
  timestamp: string;
  /** The kind's fields. */
  data: D;
}

declare const unknownKind: unique symbol;
/**
 * The `event` of a kind this SDK version does not know. Branded so that `event === 'credit.low'`
 * still narrows the union (a plain `string & {}` member would swallow every literal); to test for
 * a kind newer than the SDK, compare `event.event as string`.
 */
export type UnknownEventKind = '' & { readonly [unknownKind]: true };

/** A delivery of a kind this SDK version does not know: still verified, with untyped `data`. */
export type UnknownWebhookEvent = WebhookEnvelope<UnknownEventKind, Record<string, unknown>>;

/** A delivery of one given kind the spec names. */
export type WebhookEventOf<K extends KnownEventKind> = WebhookEnvelope<K, WebhookEventDataMap[K]>;

/**
 * A verified webhook delivery: a union on `event` over every kind the spec names, plus newer kinds.
 *
 * @example
 * ```ts
 * if (event.event === 'credit.low') console.log(event.data.balance, event.data.threshold);
 * ```
 */
export type WebhookEvent = { [K in KnownEventKind]: WebhookEventOf<K> }[KnownEventKind] | UnknownWebhookEvent;

const FIELDS = ['event', 'version', 'delivery_id', 'timestamp'] as const;
const decoder = /* @__PURE__ */ new TextDecoder();

/**
 * Reads a verified body as the delivery envelope: the event, or else a `[svc-sdk]` message naming
 * what is wrong (the field, never a value). A message rather than a throw, so that the handler,
 * which answers it as text, carries no error class.
 */
export function readWebhookEvent(body: string | Uint8Array): WebhookEvent | string {
  let value: Record<string, unknown> | undefined;
  try {
    value = JSON.parse(typeof body === 'string' ? body : decoder.decode(body)) as Record<string, unknown>;
  } catch {
    // Not JSON: the next check says what the body must be.
  }
  if (!isObject(value)) return notADelivery('the body must be a JSON object');
  for (const field of FIELDS) {
    if (typeof value[field] !== 'string' || !value[field]) return notADelivery(`"${field}" must be a non-empty string`);
  }
  return isObject(value.data) ? (value as unknown as WebhookEvent) : notADelivery('"data" must be an object');
}

/** A JSON object: what `JSON.parse` gives is of this realm, so `instanceof` holds; arrays are not one. */
function isObject(value: unknown): value is Record<string, unknown> {
  return value instanceof Object && !Array.isArray(value);
}

function notADelivery(problem: string): string {
  return `[svc-sdk] not a webhook delivery: ${problem}`;
}
