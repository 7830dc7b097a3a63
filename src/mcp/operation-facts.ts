// What the MCP server needs to know about the client's operations, in one place: whether an
// operation changes state on the service, and whether it removes or replaces something. Every
// tool names the operations it calls; its annotations and the write gate are derived from here,
// never written by hand per tool.
//
// TODO(operation table): once src/core holds the operation table (issue 31: name, method, path
// template, schemas, may-retry, returns-nothing, list, upload, changes-state), read `changesState`
// from its entries and `knownOperation` from its names; keep `destroys` here (the table does not
// say whether a change overwrites or deletes). Nothing else in src/mcp reads operation facts.

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

const READ: OperationFacts = { changesState: false, destroys: false, mayReplace: false };
const WRITE: OperationFacts = { changesState: true, destroys: false, mayReplace: false };
const REPLACE: OperationFacts = { changesState: true, destroys: false, mayReplace: true };
const DESTROY: OperationFacts = { changesState: true, destroys: true, mayReplace: true };

/** The operations the tools use, by their operation-table name (`resource.method`). */
const FACTS: Readonly<Record<string, OperationFacts>> = {
  'deals.create': WRITE,
  // The dry run of deals.create (`ephemeral: true`): validated by the service, nothing stored.
  'deals.preview': READ,
  'deals.linkedRoomIds': READ,
  'rooms.create': WRITE,
  'transactions.create': WRITE,
  'transactions.list': READ,
  // Sets `linked_room_id`: replaces the link a transaction may already have.
  'transactions.update': REPLACE,
  'documents.uploadMany': WRITE,
  'search.query': READ,
  'webhooks.list': READ,
  'webhooks.retrieve': READ,
  'webhooks.create': WRITE,
  // Schedules a `ping.test` delivery to the endpoint's receiver: a side effect outside this process.
  'webhooks.ping': WRITE,
  'webhooks.delete': DESTROY,
  // The old secret stops verifying deliveries at once.
  'webhooks.rotateSecret': DESTROY,
};

/** The facts of `operation`, or undefined when no such operation exists. */
export function operationFacts(operation: string): OperationFacts | undefined {
  return Object.hasOwn(FACTS, operation) ? FACTS[operation] : undefined;
}

/** Throws naming the tool and the operation when a tool names an operation that does not exist. */
export function assertKnownOperations(tool: string, operations: readonly string[]): void {
  if (operations.length === 0) throw new Error(`[svc-sdk] MCP tool ${tool} names no operation: list the client operations it calls`);
  for (const operation of operations) {
    if (operationFacts(operation) === undefined) throw new Error(`[svc-sdk] MCP tool ${tool} names the unknown operation ${operation}`);
  }
}

/** How a tool that calls `operations` may act: read only, write, or destroy (the strongest wins). */
export function accessOf(operations: readonly string[]): 'read' | 'write' | 'destroy' {
  const facts = operations.map((operation) => operationFacts(operation) ?? DESTROY);
  if (facts.some((fact) => fact.destroys)) return 'destroy';
  return facts.some((fact) => fact.changesState) ? 'write' : 'read';
}

/** True when a tool calling `operations` may delete or replace something (its `destructiveHint`). */
export function mayDestroy(operations: readonly string[]): boolean {
  return operations.some((operation) => (operationFacts(operation) ?? DESTROY).mayReplace);
}
