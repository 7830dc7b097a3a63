import * as z from 'zod/mini';
import { openEnum, openEnumOut, requiredString } from './common.js';

/** Deal stages the spec names; others are accepted. */
export type DealStage = 'sourcing' | 'closing' | (string & {});
/** Asset classes the spec names; others are accepted. */
export type AssetClass = 'equity' | (string & {});

/** Body of `deals.create`; extra fields are sent as given. */
export const DealCreateParamsSchema = z.looseObject({
  name: requiredString('name', 'the deal name'),
  stage: openEnum('stage', ['sourcing', 'closing']),
  asset_class: openEnum('asset_class', ['equity']),
});

const dealFields = {
  name: z.string(),
  stage: openEnumOut<'sourcing' | 'closing'>(),
  asset_class: z.optional(openEnumOut<'equity'>()),
};

/** A deal as the service returns it; fields the spec does not name are kept. */
export const DealSchema = z.looseObject({
  id: z.number(),
  ...dealFields,
});

/** The result of a dry run (`ephemeral: true`): the deal that would be created, with `id: null`. */
export const DealPreviewSchema = z.looseObject({
  id: z.null(),
  ...dealFields,
});

/** Body of `deals.create`. */
export interface DealCreateParams {
  /** The deal's name, such as `'Acme'`. */
  name: string;
  /** Where the deal stands: `'sourcing'`, `'closing'`, or another stage the service accepts. */
  stage: DealStage;
  /** The asset class, such as `'equity'`. */
  asset_class: AssetClass;
}
/** A deal, the anchor record of the CRM. */
export interface Deal {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** The deal's id, for `transactions.create({ deal_id })` and `deals.linkedRoomIds`. */
  id: number;
  /** The deal's name. */
  name: string;
  /** Where the deal stands, such as `'sourcing'` or `'closing'`. */
  stage: DealStage;
  /** The asset class, such as `'equity'`. */
  asset_class?: AssetClass | undefined;
}
/** A dry-run deal: validated by the service, not stored. */
export interface DealPreview {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** Always `null`: a dry run stores nothing, so the deal has no id. */
  id: null;
  /** The deal's name. */
  name: string;
  /** Where the deal stands, such as `'sourcing'` or `'closing'`. */
  stage: DealStage;
  /** The asset class, such as `'equity'`. */
  asset_class?: AssetClass | undefined;
}
