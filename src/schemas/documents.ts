import * as z from 'zod/mini';

/** A document stored in a room. Unknown fields are kept. */
export const DocumentSchema = z.looseObject({
  id: z.number(),
  original_filename: z.string(),
});

/** A document uploaded to a room. */
export interface Document {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** The document's id. */
  id: number;
  /** The filename it was uploaded with. */
  original_filename: string;
}
