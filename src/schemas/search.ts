import * as z from 'zod/mini';
import { requiredString, type KnownFields } from './common.js';

/** Body of `search.query`; extra fields are sent as given. */
export const SearchParamsSchema = z.looseObject({
  query: requiredString('query', 'the question to ask'),
});

/** One cited passage backing an answer. Unknown fields are kept. */
const CitationSchema = z.looseObject({
  document_id: z.optional(z.number()),
  filename: z.optional(z.string()),
  passage: z.optional(z.string()),
});

/** Cited answers from a room's documents. The spec does not show the shape: every field is optional. */
export const SearchResultSchema = z.looseObject({
  answer: z.optional(z.nullable(z.string())),
  citations: z.optional(z.array(CitationSchema)),
});

/** Body of `search.query`. @interface */
export type SearchParams = KnownFields<z.input<typeof SearchParamsSchema>>;
/** A passage of a document cited by an answer. @interface */
export type Citation = z.output<typeof CitationSchema>;
/** The answer to a question over a room's documents, with its citations. @interface */
export type SearchResult = z.output<typeof SearchResultSchema>;
