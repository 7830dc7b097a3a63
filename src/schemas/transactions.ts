import * as z from 'zod/mini';
import { idField, requiredString } from './common.js';

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
export const TransactionListParamsSchema = z.object({
  deal_id: idField('deal_id'),
});

/** A transaction: the link from a deal to its room (`linked_room_id`). Unknown fields are kept. */
export const TransactionSchema = z.looseObject({
  id: z.number(),
  name: z.optional(z.string()),
  deal_id: z.optional(z.number()),
  linked_room_id: z.optional(z.nullable(z.number())),
});

/** A list of transactions (the core has already taken it out of a `{ results }` page, see `CoreRequest.page`). */
export const TransactionListSchema = z.array(TransactionSchema);

/** Body of `transactions.create`. */
export interface TransactionCreateParams {
  /** The transaction's name, such as `'Acme Series A'`. */
  name: string;
  /** The deal it belongs to: the `id` of a deal from `deals.create`. */
  deal_id: number;
}
/** Body of `transactions.update`. */
export interface TransactionUpdateParams {
  /** The data room to link: the `id` of a room from `rooms.create`. */
  linked_room_id: number;
}
/** Query of `transactions.list`. */
export interface TransactionListParams {
  /** The deal whose transactions to list. */
  deal_id: number;
}
/** A transaction, joining a deal (`deal_id`) to a room (`linked_room_id`). */
export interface Transaction {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** The transaction's id. */
  id: number;
  /** The transaction's name. */
  name?: string | undefined;
  /** The deal it belongs to. */
  deal_id?: number | undefined;
  /** The data room linked to it (`transactions.update`), or `null` before one is. */
  linked_room_id?: number | null | undefined;
}
