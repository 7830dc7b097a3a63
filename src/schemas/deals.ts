import * as z from 'zod/mini';
import { openEnum, openEnumOut, requiredString, type KnownFields } from './common.js';

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
export const DealSchema = z.looseObject({ id: z.number(), ...dealFields });

/** The result of a dry run (`ephemeral: true`): the deal that would be created, with `id: null`. */
export const DealPreviewSchema = z.looseObject({ id: z.null(), ...dealFields });

/** Body of `deals.create`. @interface */
export type DealCreateParams = KnownFields<z.input<typeof DealCreateParamsSchema>>;
/** A deal, the anchor record of the CRM. @interface */
export type Deal = z.output<typeof DealSchema>;
/** A dry-run deal: validated by the service, not stored. @interface */
export type DealPreview = z.output<typeof DealPreviewSchema>;
