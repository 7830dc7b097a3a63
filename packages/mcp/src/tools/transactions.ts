// Transaction tools: create one under a deal, link it to a data room (showing the link it replaces).
import * as z from 'zod/mini';
import { operations } from 'svc-sdk/internal';
import { id, paramsArgs, record, ToolRefusal, type WriteTool } from '../tool.js';

const create = operations['transactions.create'];
const update = operations['transactions.update'];

const createArgs = z.object(paramsArgs(create, { name: 'Such as "Acme Series A".', deal_id: 'The deal it belongs to.' }));
type CreateArgs = z.infer<typeof createArgs>;

/** `transaction_create`. */
export const transactionCreate: WriteTool<CreateArgs, { operation: string; would_send: object; would_change: string }, { transaction: { id: number } }> = {
  kind: 'write',
  name: 'transaction_create',
  title: 'Create a transaction',
  description: 'Creates a transaction under a deal.',
  untrusted: { result: ['transaction.*'] },
  operations: [create],
  idempotent: false,
  args: createArgs,
  preview: z.object({ operation: z.literal(create.name), would_send: z.looseObject({}), would_change: z.string() }),
  result: z.object({ transaction: record() }),
  async previewOf(args) {
    return { operation: create.name, would_send: { ...args }, would_change: `a new transaction "${args.name}" under deal ${args.deal_id}` };
  },
  async commit(args, { client, signal }) {
    return { transaction: await client.transactions.create(args, { signal }) };
  },
  describe: (args) => `create the transaction "${args.name}" under deal ${args.deal_id}`,
  render: ({ transaction }) => `Created transaction ${transaction.id}.`,
};

const linkArgs = z.object({
  ...paramsArgs(operations['transactions.list'], { deal_id: "The transaction's deal." }),
  transaction_id: id('transaction_id').check(z.describe('The transaction to link.')),
  room_id: id('room_id').check(z.describe('The data room to link it to.')),
});
type LinkArgs = z.infer<typeof linkArgs>;
const linkPreview = z.object({
  operation: z.literal(update.name),
  would_send: z.looseObject({}),
  current_room_id: z.optional(z.number()),
  would_change: z.string(),
});
type LinkPreview = z.infer<typeof linkPreview>;

/** `transaction_link_room`: sets a transaction's `linked_room_id`; replacing another room's link needs `allowDestructive`. */
export const transactionLinkRoom: WriteTool<LinkArgs, LinkPreview, { transaction: { id: number } }> = {
  kind: 'write',
  name: 'transaction_link_room',
  title: 'Link a transaction to a data room',
  description:
    "Links a deal's transaction to a data room. Replacing another room's link needs the server's --allow-destructive.",
  untrusted: { result: ['transaction.*'] },
  operations: [operations['transactions.list'], update],
  idempotent: true,
  args: linkArgs,
  preview: linkPreview,
  result: z.object({ transaction: record() }),
  async previewOf(args, context) {
    const current = await currentLink(args, context);
    // The body transactions.update checks: room_id is already a positive integer id (id('room_id')), so it always passes.
    const would_send = { linked_room_id: args.room_id };
    if (current === args.room_id) return { operation: update.name, would_send, current_room_id: current, would_change: 'nothing: the transaction is already linked to that room' };
    return {
      operation: update.name,
      would_send,
      ...(current === undefined ? {} : { current_room_id: current }),
      would_change: current === undefined ? `link transaction ${args.transaction_id} to room ${args.room_id}` : `replace the link to room ${current} by room ${args.room_id}`,
    };
  },
  async commit(args, context) {
    // Checked again at commit: the link may have changed since the preview.
    await currentLink(args, context);
    return { transaction: await context.client.transactions.update(args.transaction_id, { linked_room_id: args.room_id }, { signal: context.signal }) };
  },
  describe: (args) => `link transaction ${args.transaction_id} to room ${args.room_id}`,
  render: ({ transaction }) => `Linked transaction ${transaction.id}.`,
};

/** The room the transaction links now (undefined: none); refuses an unknown transaction, and a replacement without allowDestructive. */
async function currentLink(args: LinkArgs, { client, signal, allowDestructive }: Parameters<WriteTool<LinkArgs, LinkPreview, object>['commit']>[1]): Promise<number | undefined> {
  const transactions = await client.transactions.list({ deal_id: args.deal_id }, { signal });
  const transaction = transactions.find((tx) => tx.id === args.transaction_id);
  if (!transaction) throw new ToolRefusal(`transaction_id: deal ${args.deal_id} has no transaction ${args.transaction_id}: list them with deal_transactions_list`);
  const current = typeof transaction.linked_room_id === 'number' ? transaction.linked_room_id : undefined;
  if (current !== undefined && current !== args.room_id && !allowDestructive) {
    throw new ToolRefusal(`transaction ${args.transaction_id} is linked to room ${current} already: replacing a link needs the server started with --allow-destructive (allowDestructive)`);
  }
  return current;
}
