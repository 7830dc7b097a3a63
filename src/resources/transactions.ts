import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/http.js';
import type { ListOptions, PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import { idField } from '../schemas/common.js';
import {
  TransactionCreateParamsSchema,
  TransactionListParamsSchema,
  TransactionListSchema,
  TransactionSchema,
  TransactionUpdateParamsSchema,
  type Transaction,
  type TransactionCreateParams,
  type TransactionListParams,
  type TransactionUpdateParams,
} from '../schemas/transactions.js';
import { Resource } from './resource.js';

const txIdSchema = idField('txId');

/** Transactions: each joins a deal (`deal_id`) to a room (`linked_room_id`). */
export class Transactions extends Resource {
  /**
   * Creates a transaction for a deal.
   *
   * @example
   * ```ts
   * const tx = await client.transactions.create({ name: 'Acme Series A', deal_id: deal.id });
   * ```
   */
  create(params: TransactionCreateParams, options?: RequestOptions): APIPromise<Transaction> {
    return this.core.call('transactions.create', options, (parse) => ({
      method: 'POST',
      path: '/svc/transactions',
      json: parse(TransactionCreateParamsSchema, params),
      schema: TransactionSchema,
    }));
  }

  /**
   * Updates a transaction; set `linked_room_id` to link its deal to a room.
   *
   * @example
   * ```ts
   * await client.transactions.update(tx.id, { linked_room_id: room.id });
   * ```
   */
  update(txId: number, params: TransactionUpdateParams, options?: RequestOptions): APIPromise<Transaction> {
    return this.core.call('transactions.update', options, (parse) => ({
      method: 'PATCH',
      path: path`/svc/transactions/${parse(txIdSchema, txId)}`,
      json: parse(TransactionUpdateParamsSchema, params),
      schema: TransactionSchema,
    }));
  }

  /**
   * Lists the transactions of a deal: awaited, every page; with `for await`, one page at a time.
   *
   * @example
   * ```ts
   * const all = await client.transactions.list({ deal_id: deal.id }); // every page
   * for await (const tx of client.transactions.list({ deal_id: deal.id })) console.log(tx.linked_room_id); // page by page
   * ```
   */
  list(params: TransactionListParams, options?: ListOptions): PagePromise<Transaction> {
    return this.core.list('transactions.list', options, (parse) => ({
      method: 'GET',
      path: '/svc/transactions',
      query: parse(TransactionListParamsSchema, params),
      schema: TransactionListSchema,
    }));
  }
}
