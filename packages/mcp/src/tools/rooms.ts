// Room tools: create a room, ask its documents a question (cited answer).
import * as z from 'zod/mini';
import { id, record, type ReadTool, type WriteTool } from '../tool.js';

const roomArgs = z.object({
  name: z.string().check(z.minLength(1), z.describe('Such as "Acme data room".')),
  room_type: z.string().check(z.minLength(1), z.describe('Such as "company_investment".')),
});
type RoomArgs = z.infer<typeof roomArgs>;
const sendPreview = (operation: string) => z.object({ operation: z.literal(operation), would_send: z.looseObject({}), would_change: z.string() });

/** `room_create`. */
export const roomCreate: WriteTool<RoomArgs, { operation: string; would_send: object; would_change: string }, { room: { id: number } }> = {
  kind: 'write',
  name: 'room_create',
  title: 'Create a data room',
  description: 'Creates a virtual data room.',
  operations: ['rooms.create'],
  idempotent: false,
  args: roomArgs,
  preview: sendPreview('rooms.create'),
  result: z.object({ room: record() }),
  async previewOf(args) {
    return { operation: 'rooms.create', would_send: { ...args }, would_change: `a new room "${args.name}" of type ${args.room_type}` };
  },
  async commit(args, { client, signal }) {
    return { room: await client.rooms.create(args, { signal }) };
  },
  describe: (args) => `create the data room "${args.name}" (${args.room_type})`,
  render: ({ room }) => `Created room ${room.id}.`,
};

/** Longest passage returned per citation, in characters: the answer stays within a model's budget. */
const PASSAGE_CHARS = 600;
/** Most citations returned. */
const MAX_CITATIONS = 8;

const askArgs = z.object({
  room_id: id('room_id').check(z.describe('The data room to ask.')),
  question: z.string().check(z.minLength(1), z.maxLength(2000), z.describe('The question, in plain words.')),
});
const citation = z.object({ document_id: z.number(), filename: z.string(), passage: z.string() });
type AskResult = { answer: string; found: boolean; citations: z.infer<typeof citation>[]; hint?: string };

/** `room_ask`: the service's cited answer over a room's documents. */
export const roomAsk: ReadTool<z.infer<typeof askArgs>, AskResult> = {
  kind: 'read',
  name: 'room_ask',
  title: "Ask a room's documents",
  description: "Answers a question from a data room's documents, with citations (document id, file name, passage).",
  operations: ['search.query'],
  idempotent: true,
  args: askArgs,
  result: z.object({ answer: z.string(), found: z.boolean(), citations: z.array(citation), hint: z.optional(z.string()) }),
  async run({ room_id, question }, { client, signal }) {
    const result = await client.search.query(room_id, { query: question }, { signal });
    const all = (result.citations ?? []).map((cited) => ({
      document_id: cited.document_id ?? 0,
      filename: cited.filename ?? '',
      passage: cut(cited.passage ?? '', PASSAGE_CHARS),
    }));
    const citations = all.slice(0, MAX_CITATIONS);
    const answer = typeof result.answer === 'string' ? cut(result.answer, 2 * PASSAGE_CHARS) : '';
    return {
      answer,
      found: answer !== '',
      citations,
      ...(all.length > citations.length ? { hint: `${all.length - citations.length} more citation(s) left out: ask a narrower question` } : {}),
    };
  },
  // One resource_link per cited document, once each.
  links: ({ room_id }, { citations }) =>
    [...new Map(citations.map((cited) => [cited.document_id, cited.filename]))].map(([documentId, filename]) => ({
      uri: `svc://rooms/${room_id}/documents/${documentId}`,
      name: filename || `document ${documentId}`,
      description: `Cited document ${documentId} of room ${room_id}`,
    })),
  render: ({ answer, found, citations }) =>
    found ? `${answer}\nSources: ${citations.map((cited) => `${cited.filename} (document ${cited.document_id})`).join('; ')}` : 'The documents hold no answer to that question.',
};

/** `text` cut to `max` characters, marked with an ellipsis when cut. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

