// The public surface of `svc-sdk` for every runtime. The Node entry (index.node.ts) adds
// streaming uploads from disk and Node's HMAC; names are listed one by one, so nothing leaks.
export { Client, type ClientOptions, type RawRequest } from './client.js';
export type { RequestOptions, UploadProgress, HttpMethod } from './core/http.js';
export {
  SvcError,
  APIError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  APIConnectionError,
  APITimeoutError,
  ValidationError,
  ResponseValidationError,
  type Issue,
} from './core/errors.js';
export type { DealCreateOptions } from './resources/deals.js';
export type { Deal, DealPreview, DealCreateParams, DealStage, AssetClass } from './schemas/deals.js';
export type { Room, RoomCreateParams, RoomType } from './schemas/rooms.js';
export type {
  Transaction,
  TransactionCreateParams,
  TransactionUpdateParams,
  TransactionListParams,
} from './schemas/transactions.js';
export type { Document } from './schemas/documents.js';
export type { SearchParams, SearchResult, Citation } from './schemas/search.js';
export type {
  WebhookCreateParams,
  WebhookUpdateParams,
  WebhookCreated,
  WebhookEndpoint,
  WebhookSecret,
} from './schemas/webhooks.js';
export type { Uploadable, UploadOptions, FileMetadata } from './uploads/types.js';
export { fileFromPath } from './uploads/file-from-path-web.js';
export {
  verifySignature,
  verifyWebhook,
  signPayload,
  createWebhookHandler,
  createMemoryDedupeStore,
  createRedisDedupeStore,
  WebhookVerificationError,
  WebhookPayloadError,
  WEBHOOK_EVENT_KINDS,
  type EventKind,
  type KnownEventKind,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventDataMap,
  type WebhookEnvelope,
  type UnknownWebhookEvent,
  type UnknownEventKind,
  type DocumentUploadedData,
  type CreditLowData,
  type CreditExhaustedData,
  type CreditGrantedData,
  type ActionApprovalRequiredData,
  type ActionApprovedData,
  type ActionRejectedData,
  type ActionExpiredData,
  type JobCompletedData,
  type JobFailedData,
  type ModuleToggledData,
  type RawBody,
  type SigningSecret,
  type SignatureHeader,
  type WebhookHandler,
  type WebhookHandlerOptions,
  type DedupeStore,
  type ClaimResult,
  type MemoryDedupeStoreOptions,
  type RedisClientLike,
  type RedisDedupeStoreOptions,
} from './webhooks/index.js';
// The resource classes are not exported: they are reached through a Client, never built alone.
