// The surface of `svc-sdk` that is the same on every runtime, listed name by name so nothing leaks.
// Each entry (index.ts, index.node.ts) adds what differs by runtime: fileFromPath and the whole of its
// `svc-sdk/webhooks` twin (exports.ts lists that entry's names once, for both).
export { Client, type ClientOptions, type RawRequest } from './client.js';
export type { RequestOptions, UploadProgress, HttpMethod } from './core/http.js';
// The promise classes are built by the client only: exported as types, to annotate with.
export type { APIPromise, WithResponse } from './core/api-promise.js';
export type { PagePromise, ListOptions } from './core/pagination.js';
export type { LogLevel, Logger } from './core/logger.js';
export { RetryBudget, type RetryBudgetOptions, type RetryKind } from './core/retry-budget.js';
export type { RateLimitInfo } from './core/rate-limit.js';
export type { SharedLimiter } from './core/governor.js';
export type { TransportOptions } from './core/transport.js';
export type {
  ClientHooks,
  ClientHooksOption,
  CallInfo,
  BeforeRequestContext,
  AfterResponseContext,
  BeforeRetryContext,
  ErrorContext,
} from './core/types.js';
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
  APIUserAbortError,
  ValidationError,
  UndiciMismatchError,
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
export type {
  UploadManyInput,
  UploadManyInputs,
  UploadManyOptions,
  UploadManyProgress,
  UploadManyResult,
  UploadManyFile,
  UploadedFile,
  SkippedFile,
  FailedFile,
  UnknownFile,
  UploadManyStop,
} from './uploads/upload-many-types.js';
// The resource classes are exported as types only: they are reached through a Client, never built
// alone, and their methods are documented in the API reference under these names.
export type { Deals } from './resources/deals.js';
export type { Rooms } from './resources/rooms.js';
export type { Transactions } from './resources/transactions.js';
export type { Documents } from './resources/documents.js';
export type { Search } from './resources/search.js';
export type { Webhooks } from './resources/webhooks.js';
