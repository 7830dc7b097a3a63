// The shape of one MCP tool of svc-sdk, as data: the server (server.ts) registers it, derives its
// annotations from the operations it names, and wraps a write in preview → commit. A tool calls
// the public Client methods only; it never restates a path.
import * as z from 'zod/mini';
import type { Client } from 'svc-sdk';
import type { SecretFiles } from './secret-files.js';
import { toolSchema, type ToolSchema } from './tool-schema.js';

/** What a tool's code gets besides its arguments. */
export interface ToolContext {
  readonly client: Client;
  /** True when the server was created with `allowDestructive` (replacing a link needs it). */
  readonly allowDestructive: boolean;
  /** Where one-time secrets go instead of into a result. */
  readonly secrets: SecretFiles;
  /** Folders local paths must be inside (uploads); resolved, real paths. */
  readonly uploadRoots: readonly string[];
  /** The server's own folder (upload manifests). */
  readonly stateDir: string;
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
  /** The client operations it calls, by operation-table name (`deals.create`); its annotations derive from them. */
  readonly operations: readonly string[];
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
  /** Links to the resources a result names (the documents an answer cites). */
  links?(args: Args, result: Result): ResourceLinkOf[];
}

/** A `resource_link` content block's fields. */
export interface ResourceLinkOf {
  uri: string;
  name: string;
  description?: string;
}

/** A tool that changes something: a preview first (with a commit token), the change on a second call with the token. */
export interface WriteTool<Args, Preview extends object, Result extends object> extends ToolBase<Args> {
  readonly kind: 'write';
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

/** A refusal the model can act on (bad input, a link that needs --allow-destructive): returned as a tool error, nothing sent. */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal';
}

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
