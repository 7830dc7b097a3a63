import * as z from 'zod/mini';
import { requiredString } from './common.js';

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

/** Body of `search.query`. */
export interface SearchParams {
  /** The question to answer from the room's documents, in plain words. */
  query: string;
}
/** A passage of a document cited by an answer. */
export interface Citation {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** The id of the cited document. */
  document_id?: number | undefined;
  /** The cited document's filename. */
  filename?: string | undefined;
  /** The text cited from it. */
  passage?: string | undefined;
}
/** The answer to a question over a room's documents, with its citations. */
export interface SearchResult {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** The answer, or `null` when the documents do not hold one. */
  answer?: string | null | undefined;
  /** The passages the answer rests on. */
  citations?: Citation[] | undefined;
}
