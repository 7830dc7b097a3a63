import type MiniSearchClass from 'minisearch';
import { importPeer } from './peers.js';

/** A stored document the search can read. */
export interface SearchableDocument {
  id: number;
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

/** One cited passage of an answer. */
export interface Citation {
  document_id: number;
  filename: string;
  passage: string;
  score: number;
}

/** The emulator's answer to a search: the best passage as the answer, with its citations. */
export interface SearchAnswer {
  answer: string | null;
  citations: Citation[];
}

interface Passage {
  id: string;
  document_id: number;
  filename: string;
  text: string;
}

const MAX_CITATIONS = 3;
const PASSAGE_CHARS = 120;

let miniSearch: Promise<typeof MiniSearchClass> | undefined;

/** minisearch, imported on the first search only: the rest of the emulator works without it. */
function loadMiniSearch(): Promise<typeof MiniSearchClass> {
  miniSearch ??= importPeer('minisearch', async () => (await import('minisearch')).default, 'the emulator\'s search').catch(
    (error: unknown) => {
      miniSearch = undefined; // installed later (a long-running CLI emulator): the next search tries again
      throw error;
    },
  );
  return miniSearch;
}

/** Ranks the passages of a room's text documents against a question (BM25 by minisearch). */
export async function searchDocuments(documents: readonly SearchableDocument[], query: string): Promise<SearchAnswer> {
  const MiniSearch = await loadMiniSearch();
  const index = new MiniSearch<Passage>({ fields: ['text'], storeFields: ['document_id', 'filename', 'text'] });
  index.addAll(documents.flatMap(toPassages));
  const hits = index.search(query, { prefix: true, fuzzy: 0.2, combineWith: 'OR' }).slice(0, MAX_CITATIONS);
  const citations = hits.map((hit) => ({
    document_id: hit['document_id'] as number,
    filename: hit['filename'] as string,
    passage: hit['text'] as string,
    score: Math.round(hit.score * 1000) / 1000,
  }));
  const best = citations[0];
  return { answer: best ? `${best.passage} [${best.filename}]` : null, citations };
}

function toPassages(document: SearchableDocument): Passage[] {
  const text = readText(document);
  if (text === undefined) return [];
  return splitPassages(text).map((passage, index) => ({
    id: `${document.id}:${index}`,
    document_id: document.id,
    filename: document.filename,
    text: passage,
  }));
}

/** The document as text, or undefined for a binary file (a NUL byte or invalid UTF-8). */
function readText(document: SearchableDocument): string | undefined {
  if (document.bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(document.bytes);
  } catch {
    return undefined;
  }
}

/** Paragraphs, with long ones cut into runs of whole sentences of about PASSAGE_CHARS. */
function splitPassages(text: string): string[] {
  const passages: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const sentences = paragraph.replace(/\s+/g, ' ').trim().match(/[^.!?]+[.!?]*\s*/g) ?? [];
    let current = '';
    for (const sentence of sentences) {
      if (current && current.length + sentence.length > PASSAGE_CHARS) {
        passages.push(current.trim());
        current = '';
      }
      current += sentence;
    }
    if (current.trim()) passages.push(current.trim());
  }
  return passages;
}
