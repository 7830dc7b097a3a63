// Under `exactOptionalPropertyTypes`, a user may write `{ timeout: undefined }` (or spread an
// object whose field is `string | undefined`) wherever a property is optional: every optional
// property of a public options or params type must say `?: T | undefined`. This file is compiled
// with exactOptionalPropertyTypes on by `npm run typecheck:exact` (./tsconfig.json), against the
// built declarations users get (run `npm run build` first); an error
// names the type and lists its properties that refuse `undefined`.
import type {
  ClientOptions,
  DealCreateOptions,
  DealCreateParams,
  FileMetadata,
  ListOptions,
  RawRequest,
  RequestOptions,
  RoomCreateParams,
  SearchParams,
  TransactionCreateParams,
  TransactionListParams,
  TransactionUpdateParams,
  UploadOptions,
  WebhookCreateParams,
  WebhookUpdateParams,
} from 'svc-sdk';
import type { EmulatorOptions, WaitOptions } from 'svc-sdk/testing';
import type {
  MemoryDedupeStoreOptions,
  RedisDedupeStoreOptions,
  VerifyWebhookOptions,
  WebhookHandlerOptions,
} from 'svc-sdk/webhooks';

/** True when this file is compiled with exactOptionalPropertyTypes (the root tsconfig has it off). */
type ExactMode = { a: undefined } extends { a?: string } ? false : true;

/** `T` with each optional property required, keeping an explicit `| undefined` (which `-?` keeps only in exact mode). */
type Explicit<T> = { [K in keyof T]-?: T[K] };

/** The optional properties of `T` that refuse an explicit `undefined`; `never` when there are none. */
type RefusesUndefined<T> = ExactMode extends true
  ? { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? (undefined extends Explicit<T>[K] ? never : K) : never }[keyof T]
  : never;

/** `true` when every optional property of `T` accepts `undefined`, else the names of those that do not. */
type AcceptsUndefined<T> = [RefusesUndefined<T>] extends [never] ? true : RefusesUndefined<T>;

type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends <V>() => V extends B ? 1 : 2 ? true : false;

// The detector itself: in exact mode it must find `a` (and not `b`), else every check below passes vacuously.
export const detectorFindsRefusals: Equal<RefusesUndefined<{ a?: string; b?: string | undefined; c: string }>, ExactMode extends true ? 'a' : never> = true;

export const requestOptions: AcceptsUndefined<RequestOptions> = true;
export const clientOptions: AcceptsUndefined<ClientOptions> = true;
export const rawRequest: AcceptsUndefined<RawRequest> = true;
export const listOptions: AcceptsUndefined<ListOptions> = true;
export const dealCreateOptions: AcceptsUndefined<DealCreateOptions> = true;
export const uploadOptions: AcceptsUndefined<UploadOptions> = true;
export const fileMetadata: AcceptsUndefined<FileMetadata> = true;
export const webhookHandlerOptions: AcceptsUndefined<WebhookHandlerOptions> = true;
export const verifyWebhookOptions: AcceptsUndefined<VerifyWebhookOptions> = true;
export const memoryDedupeStoreOptions: AcceptsUndefined<MemoryDedupeStoreOptions> = true;
export const redisDedupeStoreOptions: AcceptsUndefined<RedisDedupeStoreOptions> = true;
export const emulatorOptions: AcceptsUndefined<EmulatorOptions> = true;
export const waitOptions: AcceptsUndefined<WaitOptions> = true;
export const dealCreateParams: AcceptsUndefined<DealCreateParams> = true;
export const roomCreateParams: AcceptsUndefined<RoomCreateParams> = true;
export const transactionCreateParams: AcceptsUndefined<TransactionCreateParams> = true;
export const transactionUpdateParams: AcceptsUndefined<TransactionUpdateParams> = true;
export const transactionListParams: AcceptsUndefined<TransactionListParams> = true;
export const searchParams: AcceptsUndefined<SearchParams> = true;
export const webhookCreateParams: AcceptsUndefined<WebhookCreateParams> = true;
export const webhookUpdateParams: AcceptsUndefined<WebhookUpdateParams> = true;
