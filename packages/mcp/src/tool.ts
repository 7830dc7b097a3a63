// The shape of one MCP tool of svc-sdk, as data: the server (server.ts) registers it, gates and
// annotates it by the effects of the operation-table entries it names, and wraps a write in
// preview → commit. A tool calls the public Client methods only; it never restates a path, an
// operation's effect or a field the service checks (its arguments come from the params schemas).
import * as z from 'zod/mini';
import type { Client } from 'svc-sdk';
import type { ActionLedger } from 'svc-sdk/actions';
import { operations, type Operation, type OperationEffect } from 'svc-sdk/internal';
import type { SecretFiles } from './secret-files.js';
import type { UploadPolicy } from './upload-policy.js';
import { ToolRefusal } from './tool-refusal.js';
import { toolSchema, type ToolSchema } from './tool-schema.js';

/** What a tool's code gets besides its arguments. */
export interface ToolContext {
  readonly client: Client;
  /** The action ledger the server was given (`createMcpServer({ actions })`), if any. */
  readonly actions: ActionLedger | undefined;
  /** True when the server was created with `allowDestructive` (replacing a link needs it). */
  readonly allowDestructive: boolean;
  /** Where one-time secrets go instead of into a result. */
  readonly secrets: SecretFiles;
  /** Folders local paths must be inside (uploads): the user's choice (uploadRoots) or the host's roots; real paths. */
  uploadRoots(): Promise<readonly string[]>;
  /** What uploads refuse inside the roots (credential places, the state folder), less the user's opt-ins. */
  readonly policy: UploadPolicy;
  /** The server's own folder (upload manifests). */
  readonly stateDir: string;
  /**
   * In a preview: binds `record` (the content the preview shows, as JSON) to the commit token. In a
   * commit: the record the preview bound, read back from the state folder and checked against the token.
   */
  bind(record: unknown): void;
  readonly bound: unknown;
  /** Cancels the call when the client cancels the request. */
  readonly signal: AbortSignal;
  /** Sends a progress notification when the caller asked for them (a progress token); otherwise does nothing. */
  progress(progress: number, total: number | undefined, message: string): Promise<void>;
}

/** What every tool states about itself. */
interface ToolBase<Args> {
  /** snake_case, `<resource>_<task>`. */
  readonly name: string;
  readonly title: string;
  /** For the model: what the tool does and when to use it, in a sentence or two. */
  readonly description: string;
  /**
   * Fields of its results (and previews) another party could have written, as `escapeFields` paths:
   * escaped, listed in the result's `_meta`, and quoted by `render`.
   */
  readonly untrusted?: { readonly preview?: readonly string[]; readonly result?: readonly string[] } | undefined;
  /**
   * The entries of the operation table whose calls it makes (a dry run and the methods made of an
   * entry, such as `deals.linkedRoomIds` of `transactions.list`, count as that entry): how it is
   * listed and annotated follows from their effects (`accessOf`, `mayDestroy`).
   */
  readonly operations: readonly Operation[];
  /** `'actions'`: a tool over the action ledger instead of the service (no operation; listed only with `createMcpServer({ actions })`, never a write). */
  readonly needs?: 'actions';
  /** True when calling it again with the same arguments has no further effect. */
  readonly idempotent: boolean;
  /** Its arguments: a zod/mini object shape (a write tool gets `commit_token` added). */
  readonly args: z.ZodMiniObject<z.core.$ZodLooseShape & Record<string, z.ZodMiniType>, z.core.$strip> & z.ZodMiniType<Args>;
}

/** A tool that changes nothing: one call, one answer. */
export interface ReadTool<Args, Result extends object> extends ToolBase<Args> {
  readonly kind: 'read';
  readonly result: z.ZodMiniType<Result>;
  run(args: Args, context: ToolContext): Promise<Result>;
  /** A short text rendering of the result for hosts that show text only. */
  render(result: Result): string;
}

/** A tool that changes something: a preview first (with a commit token), the change on a second call with the token. */
export interface WriteTool<Args, Preview extends object, Result extends object> extends ToolBase<Args> {
  readonly kind: 'write';
  /** True when its preview binds content (`context.bind`): the commit gets it back as `context.bound`, or is refused. */
  readonly bindsContent?: true | undefined;
  readonly preview: z.ZodMiniType<Preview>;
  readonly result: z.ZodMiniType<Result>;
  /** What would be sent and what would change; sends nothing that changes state. Throws a `ToolRefusal` to refuse. */
  previewOf(args: Args, context: ToolContext): Promise<Preview>;
  /** Makes the change, once the token and (where the host can ask) the user agreed. */
  commit(args: Args, context: ToolContext): Promise<Result>;
  /** What a commit with `args` does, in a few words ("create the deal …"): the preview's text and the user's confirmation. */
  describe(args: Args): string;
  render(result: Result): string;
}

/** Any tool of the server. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of tools of different argument types
export type AnyTool = ReadTool<any, any> | WriteTool<any, any, any>;

export { ToolRefusal } from './tool-refusal.js';

/** A positive whole number (an id). */
export const id = (what: string) => z.int().check(z.positive(`${what} must be a positive whole number`));

/** Default and largest page of a list tool. */
export const PAGE = { default: 20, max: 50 } as const;

/** The arguments every list tool takes: a page size and the cursor of the previous page. */
export const pageArgs = {
  limit: z.optional(z.int().check(z.minimum(1), z.maximum(PAGE.max))),
  cursor: z.optional(z.string()),
};

/** The fields every list result carries: where to go on, and a hint when there is more. */
export const pageFields = {
  next_cursor: z.optional(z.string()),
  hint: z.optional(z.string()),
};

/**
 * One page of `items` after the (opaque) `cursor`: the items, the cursor of the next page when
 * there is one and a hint saying how to get it. Throws a `ToolRefusal` on a cursor this server did not make.
 */
export function pageOf<T>(items: readonly T[], args: { limit?: number | undefined; cursor?: string | undefined }): { items: T[]; next_cursor?: string; hint?: string } {
  const start = args.cursor === undefined ? 0 : offsetOf(args.cursor);
  const limit = args.limit ?? PAGE.default;
  const page = items.slice(start, start + limit);
  if (start + limit >= items.length) return { items: page };
  return {
    items: page,
    next_cursor: Buffer.from(`o:${start + limit}`).toString('base64url'),
    hint: `${items.length - start - limit} more: call again with cursor set to next_cursor`,
  };
}

function offsetOf(cursor: string): number {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new ToolRefusal('cursor is not one this server gave: pass next_cursor from the previous page unchanged, or omit it');
  return Number(match[1]);
}

/** Output schema of a service record: its id, every other field kept. */
export const record = (fields: Record<string, z.ZodMiniType> = {}) => z.looseObject({ id: z.number(), ...fields });

/** The advertised schemas of a tool, made once. */
export function schemasOf(tool: AnyTool): { input: ToolSchema<unknown>; output: ToolSchema<unknown> } {
  if (tool.kind === 'read') return { input: toolSchema(tool.args), output: toolSchema(tool.result) };
  const input = z.object({
    ...tool.args.shape,
    commit_token: z.optional(z.string().check(z.describe("Omit to preview; then pass the preview's token to commit."))),
  });
  // The preview's shape is advertised by its operation only (each tool's preview differs, and the
  // whole tools/list must stay within a model's budget); the preview is validated in full all the same.
  const output = z.looseObject({
    status: z.enum(['preview', 'committed']),
    preview: z.optional(z.looseObject({ operation: z.string() })),
    commit_token: z.optional(z.string()),
    result: z.optional(tool.result),
  });
  return { input: toolSchema(input), output: toolSchema(output) };
}

/**
 * Checks `params` by the SDK's own rules for `operation` (its params schema), as the commit's call
 * will: a preview never hands out a token its commit would refuse. Throws a ToolRefusal with the SDK's messages.
 */
export function checkParams(operation: Operation, params: unknown): void {
  if (operation.params === undefined) return;
  const parsed = z.safeParse(operation.params, params);
  if (!parsed.success) throw new ToolRefusal(`${parsed.error.issues.map((issue) => issue.message).join('; ')}: nothing was previewed`);
}

/** The fields of an operation's params schema (a zod/mini object). */
type ParamsShape<O> = O extends { readonly params: z.ZodMiniObject<infer Shape, z.core.$ZodObjectConfig> } ? Shape : never;

/**
 * Tool arguments taken from `operation`'s params schema: each field of `described` checked by the
 * SDK's own schema of it (and its messages), with the description the model reads. What the
 * service takes stays written once, in src/schemas.
 *
 * @param operation The table entry whose params schema has the fields.
 * @param described Each field the tool takes, with what to tell the model of it.
 */
export function paramsArgs<O extends Operation, const Field extends keyof ParamsShape<O> & string>(operation: O, described: Readonly<Record<Field, string>>): { [Key in Field]: ParamsShape<O>[Key] } {
  const shape = (operation.params as z.ZodMiniObject).shape as Record<string, z.ZodMiniType>;
  return Object.fromEntries(Object.entries<string>(described).map(([field, text]) => [field, shape[field]!.check(z.describe(text))])) as unknown as { [Key in Field]: ParamsShape<O>[Key] };
}

/** Effects, weakest first: a tool is as strong as the strongest operation it calls. */
const STRENGTH: Readonly<Record<OperationEffect, number>> = { read: 0, write: 1, replace: 2, destroy: 3 };

/**
 * The strongest effect of the operations `tool` calls (`read` for a tool over the action ledger, which calls none).
 *
 * @param tool The tool, with the table entries it names.
 */
export function effectOf(tool: AnyTool): OperationEffect {
  return tool.operations.reduce<OperationEffect>((strongest, operation) => (STRENGTH[operation.effect] > STRENGTH[strongest] ? operation.effect : strongest), 'read');
}

/**
 * How the server lists `tool`: `read` always; `write` with `allowWrites`; `destroy` with
 * `allowDestructive` as well. A tool that may `replace` is listed with the writes: it checks
 * `allowDestructive` itself against the value it would replace.
 *
 * @param tool The tool, with the table entries it names.
 */
export function accessOf(tool: AnyTool): 'read' | 'write' | 'destroy' {
  const effect = effectOf(tool);
  return effect === 'replace' ? 'write' : effect;
}

/**
 * True when `tool` may replace or destroy something (its `destructiveHint`).
 *
 * @param tool The tool, with the table entries it names.
 */
export function mayDestroy(tool: AnyTool): boolean {
  return STRENGTH[effectOf(tool)] >= STRENGTH.replace;
}

/** The table's entries, to tell one of them from a look-alike object. */
const ENTRIES: ReadonlySet<Operation> = new Set(Object.values(operations));

/**
 * Throws naming the tool when a tool over the service names no operation, or an object that is not an entry of the table.
 *
 * @param tool The tool, with the table entries it names.
 */
export function assertKnownOperations(tool: AnyTool): void {
  if (tool.operations.length === 0) throw new Error(`[svc-sdk] MCP tool ${tool.name} names no operation: list the client operations it calls`);
  for (const operation of tool.operations) {
    if (!ENTRIES.has(operation)) throw new Error(`[svc-sdk] MCP tool ${tool.name} names the unknown operation ${operation.name}`);
  }
}
