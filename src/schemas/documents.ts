import * as z from 'zod/mini';

/** A document stored in a room. Unknown fields are kept. */
export const DocumentSchema = z.looseObject({
  id: z.number(),
  original_filename: z.string(),
});

/** A document uploaded to a room. @interface */
export type Document = z.output<typeof DocumentSchema>;
