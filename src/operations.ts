/**
 * Every operation of the service, as data: the single source of what the SDK can call. Resource
 * methods hand the core an entry and their arguments; hooks and telemetry name calls after it
 * (`CallInfo.operation`, `urlTemplate`); internal tools read it too: the MCP server's tools name
 * their entries, take their arguments from the params schemas, and are gated and annotated by each
 * entry's `effect`. Nothing else restates a method or a path: test/client/core-structure.test.ts checks.
 *
 * Paths are relative to `/api/v1` and name their parameters (`{room_id}`). Webhook management paths
 * other than create's are assumptions (the spec does not show them): see the README.
 *
 * Read-only, for the SDK's own modules and tools (svc-sdk/internal); not part of the public API.
 */
import { defineOperation } from './core/operation.js';
import { idField } from './schemas/common.js';
import { DealCreateParamsSchema, DealPreviewSchema, DealSchema } from './schemas/deals.js';
import { DocumentSchema } from './schemas/documents.js';
import { RoomCreateParamsSchema, RoomSchema } from './schemas/rooms.js';
import { SearchParamsSchema, SearchResultSchema } from './schemas/search.js';
import { TransactionCreateParamsSchema, TransactionListParamsSchema, TransactionListSchema, TransactionSchema, TransactionUpdateParamsSchema } from './schemas/transactions.js';
import { WebhookCreatedSchema, WebhookCreateParamsSchema, WebhookEndpointListSchema, WebhookEndpointSchema, WebhookSecretSchema, WebhookUpdateParamsSchema } from './schemas/webhooks.js';

// Each parameter's schema names the argument as the method's signature does, for its messages.
const room_id = idField('roomId');
const transaction_id = idField('txId');
const webhook_id = idField('webhookId');

/** The operations, by name (the SDK's own modules and tools read it; not public API). */
export const operations = Object.freeze({
  'deals.create': defineOperation({
    name: 'deals.create',
    method: 'POST',
    path: '/svc/crm/deals',
    params: DealCreateParamsSchema,
    response: DealSchema,
    mayRetry: false,
    effect: 'write',
    // `?ephemeral=true` validates and answers the deal that would be stored, storing nothing.
    dryRun: { query: { ephemeral: true }, response: DealPreviewSchema },
  }),
  'rooms.create': defineOperation({
    name: 'rooms.create',
    method: 'POST',
    path: '/rooms',
    params: RoomCreateParamsSchema,
    response: RoomSchema,
    mayRetry: false,
    effect: 'write',
  }),
  'transactions.create': defineOperation({
    name: 'transactions.create',
    method: 'POST',
    path: '/svc/transactions',
    params: TransactionCreateParamsSchema,
    response: TransactionSchema,
    mayRetry: false,
    effect: 'write',
  }),
  'transactions.update': defineOperation({
    name: 'transactions.update',
    method: 'PATCH',
    path: '/svc/transactions/{transaction_id}',
    pathParameters: { transaction_id },
    params: TransactionUpdateParamsSchema,
    response: TransactionSchema,
    mayRetry: true,
    // Sets `linked_room_id`, which may already name another room: a tool replaces a link only with allowDestructive.
    effect: 'replace',
  }),
  'transactions.list': defineOperation({
    name: 'transactions.list',
    method: 'GET',
    path: '/svc/transactions',
    params: TransactionListParamsSchema,
    response: TransactionListSchema,
    mayRetry: true,
    effect: 'read',
    list: true,
  }),
  'documents.upload': defineOperation({
    name: 'documents.upload',
    method: 'POST',
    path: '/rooms/{room_id}/documents',
    pathParameters: { room_id },
    response: DocumentSchema,
    mayRetry: false,
    effect: 'write',
    upload: true,
  }),
  'search.query': defineOperation({
    name: 'search.query',
    method: 'POST',
    path: '/rooms/{room_id}/search',
    pathParameters: { room_id },
    params: SearchParamsSchema,
    response: SearchResultSchema,
    // A POST that reads: still not retried, as the service does not say that it stores nothing.
    mayRetry: false,
    effect: 'read',
  }),
  'webhooks.create': defineOperation({
    name: 'webhooks.create',
    method: 'POST',
    path: '/webhooks/',
    params: WebhookCreateParamsSchema,
    response: WebhookCreatedSchema,
    mayRetry: false,
    effect: 'write',
    returnsSecret: true,
  }),
  'webhooks.list': defineOperation({
    name: 'webhooks.list',
    method: 'GET',
    path: '/webhooks/',
    response: WebhookEndpointListSchema,
    mayRetry: true,
    effect: 'read',
    list: true,
  }),
  'webhooks.retrieve': defineOperation({
    name: 'webhooks.retrieve',
    method: 'GET',
    path: '/webhooks/{webhook_id}/',
    pathParameters: { webhook_id },
    response: WebhookEndpointSchema,
    mayRetry: true,
    effect: 'read',
  }),
  'webhooks.update': defineOperation({
    name: 'webhooks.update',
    method: 'PATCH',
    path: '/webhooks/{webhook_id}/',
    pathParameters: { webhook_id },
    params: WebhookUpdateParamsSchema,
    response: WebhookEndpointSchema,
    mayRetry: true,
    // Overwrites the endpoint's url, name or event kinds.
    effect: 'replace',
  }),
  'webhooks.delete': defineOperation({
    name: 'webhooks.delete',
    method: 'DELETE',
    path: '/webhooks/{webhook_id}/',
    pathParameters: { webhook_id },
    mayRetry: true,
    // The endpoint receives nothing more, and it cannot be got back.
    effect: 'destroy',
    returnsNothing: true,
  }),
  'webhooks.rotateSecret': defineOperation({
    name: 'webhooks.rotateSecret',
    method: 'POST',
    path: '/webhooks/{webhook_id}/rotate-secret/',
    pathParameters: { webhook_id },
    response: WebhookSecretSchema,
    mayRetry: false,
    // The old secret stops verifying at once: deliveries signed with it are refused.
    effect: 'destroy',
    returnsSecret: true,
  }),
  'webhooks.ping': defineOperation({
    name: 'webhooks.ping',
    method: 'POST',
    path: '/webhooks/{webhook_id}/ping/',
    pathParameters: { webhook_id },
    mayRetry: false,
    // It stores nothing, but it sends a delivery: an effect outside the caller.
    effect: 'write',
    returnsNothing: true,
  }),
});

/** The name of an operation of the table. */
export type OperationName = keyof typeof operations;
