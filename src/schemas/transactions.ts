import * as z from 'zod/mini';
import { idField, requiredString, type KnownFields } from './common.js';

/** Body of `transactions.create`; extra fields are sent as given. */
export const TransactionCreateParamsSchema = z.looseObject({
  name: requiredString('name', 'the transaction name'),
  deal_id: idField('deal_id'),
});

/** Body of `transactions.update`; extra fields are sent as given. */
export const TransactionUpdateParamsSchema = z.looseObject({
  linked_room_id: idField('linked_room_id'),
});

/** Query of `transactions.list`. */
export const TransactionListParamsSchema = z.object({ deal_id: idField('deal_id') });

/** A transaction: the link from a deal to its room (`linked_room_id`). Unknown fields are kept. */
export const TransactionSchema = z.looseObject({
  id: z.number(),
  name: z.optional(z.string()),
  deal_id: z.optional(z.number()),
  linked_room_id: z.optional(z.nullable(z.number())),
});

/** A list of transactions (the core has already taken it out of a `{ results }` page, see `CoreRequest.page`). */
export const TransactionListSchema = z.array(TransactionSchema);

/** Body of `transactions.create`. @interface */
export type TransactionCreateParams = KnownFields<z.input<typeof TransactionCreateParamsSchema>>;
/** Body of `transactions.update`. @interface */
export type TransactionUpdateParams = KnownFields<z.input<typeof TransactionUpdateParamsSchema>>;
/** Query of `transactions.list`. @interface */
export type TransactionListParams = KnownFields<z.input<typeof TransactionListParamsSchema>>;
/** A transaction, joining a deal (`deal_id`) to a room (`linked_room_id`). @interface */
export type Transaction = z.output<typeof TransactionSchema>;
