import type { RequestOptions } from '../core/http.js';
import { path } from '../core/path.js';
import { parseParams } from '../core/validate.js';
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
  /** Creates a transaction for a deal. */
  async create(params: TransactionCreateParams, options?: RequestOptions): Promise<Transaction> {
    const json = parseParams('transactions.create', TransactionCreateParamsSchema, params);
    return this.core.request(
      { method: 'POST', path: '/svc/transactions', json, schema: TransactionSchema, operation: 'transactions.create' },
      options,
    );
  }

  /** Updates a transaction; set `linked_room_id` to link its deal to a room. */
  async update(txId: number, params: TransactionUpdateParams, options?: RequestOptions): Promise<Transaction> {
    parseParams('transactions.update', txIdSchema, txId);
    const json = parseParams('transactions.update', TransactionUpdateParamsSchema, params);
    return this.core.request(
      { method: 'PATCH', path: path`/svc/transactions/${txId}`, json, schema: TransactionSchema, operation: 'transactions.update' },
      options,
    );
  }

  /** Lists the transactions of a deal. */
  async list(params: TransactionListParams, options?: RequestOptions): Promise<Transaction[]> {
    const query = parseParams('transactions.list', TransactionListParamsSchema, params);
    return this.core.request(
      { method: 'GET', path: '/svc/transactions', query, schema: TransactionListSchema, page: true, operation: 'transactions.list' },
      options,
    );
  }
}
