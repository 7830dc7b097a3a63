import { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/http.js';
import type { ListOptions } from '../core/pagination.js';
import { parseParams } from '../core/validate.js';
import { operations } from '../operations.js';
import type { Deal, DealCreateParams, DealPreview } from '../schemas/deals.js';
import { idField } from '../schemas/common.js';
import { Resource } from './resource.js';
import type { Transactions } from './transactions.js';

/** Options of `deals.create`: `ephemeral: true` asks for a dry run that writes nothing. */
export interface DealCreateOptions extends RequestOptions {
  /** Validate the body and return the deal that would be created (`id: null`), storing nothing. */
  ephemeral?: boolean | undefined;
}

const dealIdSchema = idField('dealId');

/** Deals: the CRM's anchor record. */
export class Deals extends Resource {
  readonly #transactions: Transactions;

  constructor(core: Resource['core'], transactions: Transactions) {
    super(core);
    this.#transactions = transactions;
  }

  /**
   * Validates the deal without storing it (`?ephemeral=true`); the result has `id: null`.
   *
   * @param params The deal: `name`, `stage` and `asset_class`.
   * @param options `ephemeral: true`, with any per-call overrides of the client's settings.
   *
   * @example
   * ```ts
   * const preview = await client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' }, { ephemeral: true });
   * console.log(preview.id); // null: nothing was stored
   * ```
   */
  create(params: DealCreateParams, options: DealCreateOptions & { ephemeral: true }): APIPromise<DealPreview>;
  /**
   * Creates a deal.
   *
   * @param params The deal: `name`, `stage` and `asset_class`.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * const deal = await client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
   * console.log(deal.id);
   * ```
   */
  create(params: DealCreateParams, options?: DealCreateOptions & { ephemeral?: false | undefined }): APIPromise<Deal>;
  /**
   * Creates a deal, or dry-runs it when `options.ephemeral` is true.
   *
   * @param params The deal: `name`, `stage` and `asset_class`.
   * @param options `ephemeral` (a dry run when true), and per-call overrides of the client's settings.
   *
   * @example
   * ```ts
   * const dryRun = process.env.DRY_RUN === '1';
   * const deal = await client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' }, { ephemeral: dryRun });
   * ```
   */
  create(params: DealCreateParams, options?: DealCreateOptions): APIPromise<Deal | DealPreview>;
  create(params: DealCreateParams, { ephemeral, ...options }: DealCreateOptions = {}): APIPromise<Deal | DealPreview> {
    // `ephemeral` asks for the entry's dry run: `?ephemeral=true`, a DealPreview, safe to send again.
    return this.core.call(operations['deals.create'], { params, dryRun: ephemeral }, options) as APIPromise<Deal | DealPreview>;
  }

  /**
   * The ids of the rooms linked to a deal, through its transactions' `linked_room_id` (the canonical
   * join), read from every page of them.
   *
   * @param dealId The id of the deal.
   * @param options Per-call overrides of the client's settings (`signal`, `timeout`, `maxRetries`, `headers`), and `maxPages`.
   *
   * @example
   * ```ts
   * const roomIds = await client.deals.linkedRoomIds(deal.id); // [7], or [] before a room is linked
   * ```
   */
  linkedRoomIds(dealId: number, options?: ListOptions): APIPromise<number[]> {
    try {
      parseParams('deals.linkedRoomIds', dealIdSchema, dealId);
    } catch (error) {
      return APIPromise.failed(error);
    }
    return this.#transactions.list({ deal_id: dealId }, options).map((transactions) => {
      const ids = transactions.flatMap((tx) => (typeof tx.linked_room_id === 'number' ? [tx.linked_room_id] : []));
      return [...new Set(ids)];
    });
  }
}
