// Every name of `svc-sdk/webhooks` that both entries share (the same modules, so classes are the
// same and instanceof holds across entries). Each entry adds the four functions made with its
// HMAC back end; this one list keeps the entries' exports from drifting apart.
export type { VerifySignature, VerifyWebhook, SignPayload, CreateWebhookHandler } from './api.js';
export { WebhookVerificationError, WebhookPayloadError, type WebhookVerificationReason } from './errors.js';
export type {
  WebhookEvent,
  WebhookEventOf,
  WebhookEventDataMap,
  WebhookEnvelope,
  UnknownWebhookEvent,
  UnknownEventKind,
  DocumentUploadedData,
  CreditLowData,
  CreditExhaustedData,
  CreditGrantedData,
  ActionApprovalRequiredData,
  ActionApprovedData,
  ActionRejectedData,
  ActionExpiredData,
  JobCompletedData,
  JobFailedData,
  ModuleToggledData,
} from './events.js';
export type {
  RawBody,
  SignatureHeader,
  SigningSecret,
  VerifyWebhookOptions,
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookRejectReason,
  WebhookSecretOption,
  WebhookHooks,
  WebhookHooksOption,
  DeliveryInfo,
  DeliveryOutcome,
  DeliveryOutcomeKind,
  InboxEntry,
  WebhookInbox,
} from './types.js';
export { toNodeListener, type NodeListenerOptions, type NodeWebhookListener, type NodeRequestLike, type NodeResponseLike } from './node-listener.js';
export type { DedupeStore, ClaimResult } from './dedupe.js';
export { createMemoryDedupeStore, type MemoryDedupeStoreOptions } from './dedupe-memory.js';
export { createRedisDedupeStore, type RedisClientLike, type RedisDedupeStoreOptions } from './dedupe-redis.js';
export { WEBHOOK_EVENT_KINDS, type EventKind, type KnownEventKind } from './event-kinds.js';
// Not exported: the HMAC back ends, the header parser and the receiver (internals that the
// functions cover); the refusal table (refusals.ts) is internal too: `svc-sdk listen` imports it
// from its file.
