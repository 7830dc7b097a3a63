import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/http.js';
import type { ListOptions, PagePromise } from '../core/pagination.js';
import { operations } from '../operations.js';
import type { Transaction, TransactionCreateParams, TransactionListParams, TransactionUpdateParams } from '../schemas/transactions.js';
import { Resource } from './resource.js';

/** Transactions: each joins a deal (`deal_id`) to a room (`linked_room_id`). */
export class Transactions extends Resource {
  /**
   * Creates a transaction for a deal.
   *
   * @param params The transaction: its `name` and the `deal_id` it belongs to.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * const tx = await client.transactions.create({ name: 'Acme Series A', deal_id: deal.id });
   * ```
   */
  create(params: TransactionCreateParams, options?: RequestOptions): APIPromise<Transaction> {
    return this.core.call(operations['transactions.create'], { params }, options);
  }

  /**
   * Updates a transaction; set `linked_room_id` to link its deal to a room.
   *
   * @param txId The id of the transaction.
   * @param params The change: the `linked_room_id` to link the transaction to.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * await client.transactions.update(tx.id, { linked_room_id: room.id });
   * ```
   */
  update(txId: number, params: TransactionUpdateParams, options?: RequestOptions): APIPromise<Transaction> {
    return this.core.call(operations['transactions.update'], { path: [txId], params }, options);
  }

  /**
   * Lists the transactions of a deal: awaited, every page; with `for await`, one page at a time.
   *
   * @param params Which transactions: those of `deal_id`.
   * @param options Per-call overrides of the client's settings (`signal`, `timeout`, `maxRetries`, `headers`), and `maxPages`.
   *
   * @example
   * ```ts
   * const all = await client.transactions.list({ deal_id: deal.id }); // every page
   * for await (const tx of client.transactions.list({ deal_id: deal.id })) console.log(tx.linked_room_id); // page by page
   * ```
   */
  list(params: TransactionListParams, options?: ListOptions): PagePromise<Transaction> {
    return this.core.list(operations['transactions.list'], { params }, options);
  }
}
