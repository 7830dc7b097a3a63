// What the MCP server needs to know about the client's operations, in one place: whether an
// operation changes state on the service, and whether it removes or replaces something. Every
// tool names the operations it calls; its annotations and the write gate are derived from here,
// never written by hand per tool. Whether an operation exists and whether it changes state are read
// from the SDK's one table of operations (src/operations.ts); what a change destroys or replaces is
// a judgement of this server's (the table does not say whether a change overwrites or deletes).
import { operations as table } from 'svc-sdk/internal';

/** Facts about one client operation that decide how a tool using it is annotated and gated. */
export interface OperationFacts {
  /** True when the operation creates, changes or removes something on the service (or sends a delivery). */
  readonly changesState: boolean;
  /** True when it deletes or replaces something the user cannot get back (a webhook, its secret). */
  readonly destroys: boolean;
  /**
   * True when it sets a value that may already hold another one (a transaction's room link): the
   * tool is annotated destructive and listed with writes, and replacing an existing value needs
   * `allowDestructive` (checked by the tool against the current value).
   */
  readonly mayReplace: boolean;
}

/** Operations that delete or replace what the user cannot get back: a webhook, its secret (the old one stops verifying at once). */
const DESTROYS: ReadonlySet<string> = new Set(['webhooks.delete', 'webhooks.rotateSecret']);
/** Operations that set a value that may already hold another: a transaction's `linked_room_id`. */
const REPLACES: ReadonlySet<string> = new Set(['transactions.update']);

/**
 * Client methods the tools call that are made of a table operation rather than an entry of their
 * own: the dry run of deals.create (`ephemeral: true`, validated by the service, nothing stored),
 * the deal → room join (through transactions.list), the folder upload (documents.upload per file).
 */
const MADE_OF: Readonly<Record<string, { operation: keyof typeof table; dryRun?: true }>> = {
  'deals.preview': { operation: 'deals.create', dryRun: true },
  'deals.linkedRoomIds': { operation: 'transactions.list' },
  'documents.uploadMany': { operation: 'documents.upload' },
};

/** The facts of `operation`, or undefined when the table has no such operation (nor a method made of one). */
export function operationFacts(operation: string): OperationFacts | undefined {
  const made = Object.hasOwn(MADE_OF, operation) ? MADE_OF[operation] : undefined;
  const name = made?.operation ?? operation;
  if (!Object.hasOwn(table, name)) return undefined;
  const entry = table[name as keyof typeof table];
  if (made?.dryRun && entry.dryRun === undefined) return undefined;
  const destroys = DESTROYS.has(operation);
  return { changesState: made?.dryRun ? false : entry.changesState, destroys, mayReplace: destroys || REPLACES.has(operation) };
}

/** What an operation the table does not know is taken for: the strongest, so a typo never opens a gate. */
const UNKNOWN: OperationFacts = { changesState: true, destroys: true, mayReplace: true };

/** Throws naming the tool and the operation when a tool names an operation that does not exist. */
export function assertKnownOperations(tool: string, operations: readonly string[]): void {
  if (operations.length === 0) throw new Error(`[svc-sdk] MCP tool ${tool} names no operation: list the client operations it calls`);
  for (const operation of operations) {
    if (operationFacts(operation) === undefined) throw new Error(`[svc-sdk] MCP tool ${tool} names the unknown operation ${operation}`);
  }
}

/** How a tool that calls `operations` may act: read only, write, or destroy (the strongest wins). */
export function accessOf(operations: readonly string[]): 'read' | 'write' | 'destroy' {
  const facts = operations.map((operation) => operationFacts(operation) ?? UNKNOWN);
  if (facts.some((fact) => fact.destroys)) return 'destroy';
  return facts.some((fact) => fact.changesState) ? 'write' : 'read';
}

/** True when a tool calling `operations` may delete or replace something (its `destructiveHint`). */
export function mayDestroy(operations: readonly string[]): boolean {
  return operations.some((operation) => (operationFacts(operation) ?? UNKNOWN).mayReplace);
}
