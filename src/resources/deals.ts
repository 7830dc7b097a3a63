import type { ZodMiniType } from 'zod/mini';
import type { RequestOptions } from '../core/http.js';
import { parseParams } from '../core/validate.js';
import {
  DealCreateParamsSchema,
  DealPreviewSchema,
  DealSchema,
  type Deal,
  type DealCreateParams,
  type DealPreview,
} from '../schemas/deals.js';
import { idField } from '../schemas/common.js';
import { Resource } from './resource.js';
import type { Transactions } from './transactions.js';

/** Options of `deals.create`: `ephemeral: true` asks for a dry run that writes nothing. */
export interface DealCreateOptions extends RequestOptions {
  /** Validate the body and return the deal that would be created (`id: null`), storing nothing. */
  ephemeral?: boolean;
}

const dealIdSchema = idField('dealId');

/** Deals: the CRM's anchor record. */
export class Deals extends Resource {
  readonly #transactions: Transactions;

  constructor(core: Resource['core'], transactions: Transactions) {
    super(core);
    this.#transactions = transactions;
  }

  /** Validates the deal without storing it (`?ephemeral=true`); the result has `id: null`. */
  create(params: DealCreateParams, options: DealCreateOptions & { ephemeral: true }): Promise<DealPreview>;
  /** Creates a deal. */
  create(params: DealCreateParams, options?: DealCreateOptions & { ephemeral?: false }): Promise<Deal>;
  /** Creates a deal, or dry-runs it when `options.ephemeral` is true. */
  create(params: DealCreateParams, options?: DealCreateOptions): Promise<Deal | DealPreview>;
  async create(params: DealCreateParams, { ephemeral, ...options }: DealCreateOptions = {}): Promise<Deal | DealPreview> {
    const json = parseParams('deals.create', DealCreateParamsSchema, params);
    return this.core.request(
      {
        method: 'POST',
        path: '/svc/crm/deals',
        query: ephemeral ? { ephemeral: true } : undefined,
        json,
        schema: (ephemeral ? DealPreviewSchema : DealSchema) as ZodMiniType<Deal | DealPreview>,
        operation: 'deals.create',
        idempotent: ephemeral === true, // a dry run writes nothing, so it is safe to send again
      },
      options,
    );
  }

  /** The ids of the rooms linked to a deal, through its transactions' `linked_room_id` (the canonical join). */
  async linkedRoomIds(dealId: number, options?: RequestOptions): Promise<number[]> {
    parseParams('deals.linkedRoomIds', dealIdSchema, dealId);
    const transactions = await this.#transactions.list({ deal_id: dealId }, options);
    const ids = transactions.flatMap((tx) => (typeof tx.linked_room_id === 'number' ? [tx.linked_room_id] : []));
    return [...new Set(ids)];
  }
}
