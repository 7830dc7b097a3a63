// The params and response types are interfaces written out (so that each field's doc line reaches the
// published .d.ts: an inferred type loses it); each must stay the very type its zod schema gives.
import { describe, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import type * as T from '../../src/index.node.js';
import type { KnownFields } from '../../src/schemas/common.js';
import type * as deals from '../../src/schemas/deals.js';
import type * as documents from '../../src/schemas/documents.js';
import type * as rooms from '../../src/schemas/rooms.js';
import type * as search from '../../src/schemas/search.js';
import type * as transactions from '../../src/schemas/transactions.js';
import type * as webhooks from '../../src/schemas/webhooks.js';

type Params<S extends z.ZodMiniType> = KnownFields<z.input<S>>;
type Output<S extends z.ZodMiniType> = z.output<S>;

describe('each interface is its schema\'s type', () => {
  it('params: the schema\'s input without its index signature', () => {
    expectTypeOf<T.DealCreateParams>().toEqualTypeOf<Params<typeof deals.DealCreateParamsSchema>>();
    expectTypeOf<T.RoomCreateParams>().toEqualTypeOf<Params<typeof rooms.RoomCreateParamsSchema>>();
    expectTypeOf<T.SearchParams>().toEqualTypeOf<Params<typeof search.SearchParamsSchema>>();
    expectTypeOf<T.TransactionCreateParams>().toEqualTypeOf<Params<typeof transactions.TransactionCreateParamsSchema>>();
    expectTypeOf<T.TransactionUpdateParams>().toEqualTypeOf<Params<typeof transactions.TransactionUpdateParamsSchema>>();
    expectTypeOf<T.TransactionListParams>().toEqualTypeOf<Params<typeof transactions.TransactionListParamsSchema>>();
    expectTypeOf<T.WebhookCreateParams>().toEqualTypeOf<Params<typeof webhooks.WebhookCreateParamsSchema>>();
    expectTypeOf<T.WebhookUpdateParams>().toEqualTypeOf<Params<typeof webhooks.WebhookUpdateParamsSchema>>();
  });

  it('responses: the schema\'s output, unknown fields kept', () => {
    expectTypeOf<T.Deal>().toEqualTypeOf<Output<typeof deals.DealSchema>>();
    expectTypeOf<T.DealPreview>().toEqualTypeOf<Output<typeof deals.DealPreviewSchema>>();
    expectTypeOf<T.Document>().toEqualTypeOf<Output<typeof documents.DocumentSchema>>();
    expectTypeOf<T.Room>().toEqualTypeOf<Output<typeof rooms.RoomSchema>>();
    expectTypeOf<T.SearchResult>().toEqualTypeOf<Output<typeof search.SearchResultSchema>>();
    expectTypeOf<T.Transaction>().toEqualTypeOf<Output<typeof transactions.TransactionSchema>>();
    expectTypeOf<T.WebhookCreated>().toEqualTypeOf<Output<typeof webhooks.WebhookCreatedSchema>>();
    expectTypeOf<T.WebhookEndpoint>().toEqualTypeOf<Output<typeof webhooks.WebhookEndpointSchema>>();
    expectTypeOf<T.WebhookSecret>().toEqualTypeOf<Output<typeof webhooks.WebhookSecretSchema>>();
  });
});
