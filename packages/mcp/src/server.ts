// createMcpServer: the official MCP server SDK's McpServer with svc's tools. Each tool is data
// (tool.ts); here it is gated (read-only by default), annotated from the operations it names,
// and wrapped: reads answer at once, writes answer a preview with a commit token first and act
// only on a second call that brings the token back (and, where the host can ask, the user's yes).
import { acceptedContent, CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, McpServer, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult, type ClientCapabilities, type ServerContext } from '@modelcontextprotocol/server';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client, SvcError } from 'svc-sdk';
import { VERSION } from 'svc-sdk/internal';
import { withinBudget } from './budget.js';
import { confirmationState, DEFAULT_COMMIT_TTL_MS, processLedger, type CommitRefusal } from './commit-tokens.js';
import { accessOf, assertKnownOperations, mayDestroy } from './operation-facts.js';
import { defaultStateDir, secretFiles, type SecretFiles } from './secret-files.js';
import { schemasOf, ToolRefusal, type AnyTool, type ReadTool, type ToolContext, type WriteTool } from './tool.js';
import { TOOLS } from './tools/index.js';

/** Options of `createMcpServer`. */
export interface McpServerOptions {
  /** The client the tools call. Default: `new Client()` (SVC_API_KEY and SVC_BASE_URL from the environment). */
  client?: Client | undefined;
  /** Lists the tools that change something (each still previews first and needs the preview's commit token). Default false. */
  allowWrites?: boolean | undefined;
  /** Lists the destructive tools too (delete or rotate a webhook, replace a transaction's room link); needs `allowWrites`. Default false. */
  allowDestructive?: boolean | undefined;
  /** Only these tools, by name (of those the flags above allow). Default: all of them. */
  tools?: readonly string[] | undefined;
  /** Tools to leave out, by name. */
  excludeTools?: readonly string[] | undefined;
  /** Folders `room_documents_upload` may read from. Default: the current directory. */
  uploadRoots?: readonly string[] | undefined;
  /** The server's folder: webhook secrets (0600 files) and upload manifests. Default: the per-user state directory's `svc-sdk`. */
  stateDir?: string | undefined;
  /** How long a preview's commit token is valid, in ms. Default 5 minutes. */
  commitTtlMs?: number | undefined;
  /** Values never to show the model besides the secrets the server sees (the API key when you pass a client). */
  redact?: readonly string[] | undefined;
}

/** The name of every tool a server can list, before `allowWrites`, `allowDestructive`, `tools` and `excludeTools` narrow it. */
export const TOOL_NAMES: readonly string[] = TOOLS.map((tool) => tool.name);

/** The 2026-07-28 revision: the SDK serves it only to a server that lists it. */
const MODERN_PROTOCOL = '2026-07-28';

const INSTRUCTIONS = `Tools of a deal / data-room / webhook service.
Every tool that changes something works in two calls: the first (without commit_token) returns a preview of exactly what would be sent and a commit_token; show the preview to the user, then call the same tool again with the same arguments plus commit_token to make the change. A token is single-use, bound to those arguments and expires after a few minutes.
Typical flow: deal_create → room_create → transaction_create → transaction_link_room → room_documents_upload → room_ask.`;

/**
 * The official SDK's `McpServer` with svc's tools: read-only unless `allowWrites`, destructive
 * tools only with `allowDestructive` as well, every write previewed before it is committed.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
 * import { createMcpServer } from '@svc-sdk/mcp';
 * await createMcpServer({ allowWrites: true }).connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(options: McpServerOptions = {}): McpServer {
  const allowWrites = options.allowWrites === true;
  const allowDestructive = options.allowDestructive === true;
  if (allowDestructive && !allowWrites) throw new Error('[svc-sdk] allowDestructive lists destructive write tools: pass allowWrites: true as well');
  const tools = chooseTools(options, allowWrites, allowDestructive);
  const client = options.client ?? new Client();
  const stateDir = options.stateDir ?? defaultStateDir();
  const secrets = secretFiles(`${stateDir}/webhook-secrets`, options.redact ?? []);
  const shared = { client, allowDestructive, secrets, stateDir, uploadRoots: (options.uploadRoots ?? [process.cwd()]).map(realFolder) };
  const ttlMs = options.commitTtlMs ?? DEFAULT_COMMIT_TTL_MS;

  const server = new McpServer(
    { name: 'svc-sdk', title: 'svc deals, data rooms and webhooks', version: VERSION },
    // The current protocol (answered through server/discover, on every transport) and the earlier ones (initialize).
    // `logging`: hosts set a level (logging/setLevel); the server sends no log lines to the model.
    { capabilities: { tools: {}, logging: {} }, instructions: INSTRUCTIONS, supportedProtocolVersions: [...new Set([MODERN_PROTOCOL, ...SUPPORTED_PROTOCOL_VERSIONS])] },
  );
  for (const tool of tools) {
    const { input, output } = schemasOf(tool);
    const access = accessOf(tool.operations);
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: input,
        outputSchema: output,
        annotations: { readOnlyHint: access === 'read', destructiveHint: mayDestroy(tool.operations), idempotentHint: tool.idempotent, openWorldHint: true },
      },
      async (args: unknown, ctx: ServerContext) => {
        const context: ToolContext = { ...shared, signal: ctx.mcpReq.signal, progress: progressSender(ctx) };
        try {
          if (tool.kind === 'read') return await runRead(tool, args as object, context);
          return await runWrite(server, tool, args as Record<string, unknown>, context, ctx, ttlMs);
        } catch (error) {
          return failure(tool.name, error, secrets);
        }
      },
    );
  }
  return server;
}

/** `folder` resolved, through its links (a path checked against it is resolved the same way). */
function realFolder(folder: string): string {
  try {
    return realpathSync(resolve(folder));
  } catch {
    return resolve(folder);
  }
}

/** The tools the options allow, after checking the names and the operations each names. */
function chooseTools(options: McpServerOptions, allowWrites: boolean, allowDestructive: boolean): AnyTool[] {
  for (const [field, names] of [['tools', options.tools], ['excludeTools', options.excludeTools]] as const) {
    for (const name of names ?? []) {
      if (!TOOL_NAMES.includes(name)) throw new Error(`[svc-sdk] ${field}: no tool is named "${name}": choose from ${TOOL_NAMES.join(', ')}`);
    }
  }
  return TOOLS.filter((tool) => {
    assertKnownOperations(tool.name, tool.operations);
    const access = accessOf(tool.operations);
    const allowed = access === 'read' || (access === 'write' && allowWrites) || (access === 'destroy' && allowWrites && allowDestructive);
    if (options.tools !== undefined && options.tools.includes(tool.name) && !allowed) {
      throw new Error(`[svc-sdk] tools: ${tool.name} ${access === 'destroy' ? 'is destructive: pass allowWrites and allowDestructive' : 'changes state: pass allowWrites'} to list it`);
    }
    return allowed && (options.tools === undefined || options.tools.includes(tool.name)) && !(options.excludeTools ?? []).includes(tool.name);
  });
}

async function runRead(tool: ReadTool<unknown, object>, args: object, context: ToolContext): Promise<CallToolResult> {
  const result = withinBudget(await tool.run(args, context));
  const links = tool.links?.(args, result) ?? [];
  return {
    content: [{ type: 'text', text: tool.render(result) }, ...links.map((link) => ({ type: 'resource_link' as const, ...link }))],
    structuredContent: result as Record<string, unknown>,
  };
}

/** Preview (no token) or commit (a valid token, and the user's yes where the host can ask). */
async function runWrite(
  server: McpServer,
  tool: WriteTool<unknown, object, object>,
  { commit_token: token, ...args }: Record<string, unknown>,
  context: ToolContext,
  ctx: ServerContext,
  ttlMs: number,
): Promise<CallToolResult> {
  if (token === undefined) {
    const preview = withinBudget(await tool.previewOf(args, context));
    const { token: minted, expiresAt } = processLedger.mint(tool.name, args, ttlMs);
    const next = `To ${tool.describe(args)}, show this preview to the user, then call ${tool.name} again with the same arguments and commit_token (valid until ${expiresAt}, once).`;
    return {
      content: [{ type: 'text', text: `Preview, nothing changed yet. ${next}` }],
      structuredContent: { status: 'preview', preview, commit_token: minted, expires_at: expiresAt, next_step: next },
    };
  }
  const refusal = processLedger.check(String(token), tool.name, args);
  if (refusal !== undefined) return refused(tool.name, refusal);
  const consent = await askUser(server, ctx, String(token), `Allow the agent to ${tool.describe(args)}?`);
  if (consent !== 'yes' && consent !== 'cannot-ask') {
    if (consent === 'no') return errorResult(`[svc-sdk] ${tool.name}: the user declined; nothing was changed`);
    return consent;
  }
  // Spent just before acting: a second commit with the same token is refused even while this one runs.
  const spent = processLedger.spend(String(token), tool.name, args);
  if (spent !== undefined) return refused(tool.name, spent);
  const result = withinBudget(await tool.commit(args, context));
  return { content: [{ type: 'text', text: tool.render(result) }], structuredContent: { status: 'committed', result } };
}

/**
 * The user's answer to `message`, asked through the host: on the 2026-07-28 protocol an
 * input-required result the host fulfils and retries with (its state bound to the token), on
 * earlier ones an elicitation request. `cannot-ask` when the host declared no elicitation support:
 * then the preview's token is the consent. Nothing in the tool's arguments counts as a yes.
 */
async function askUser(server: McpServer, ctx: ServerContext, token: string, message: string): Promise<'yes' | 'no' | 'cannot-ask' | CallToolResult> {
  const requestedSchema = { type: 'object' as const, properties: { confirm: { type: 'boolean' as const, title: 'Allow', description: message } }, required: ['confirm'] };
  // The typings declare the envelope empty; on the 2026-07-28 protocol it carries the client's capabilities under this key.
  const envelope = ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined;
  const modernCapabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  if (modernCapabilities !== undefined) {
    if (!modernCapabilities.elicitation) return 'cannot-ask';
    const expected = confirmationState(token);
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
    if (answer.kind === 'elicit' && ctx.mcpReq.requestState() === expected) {
      return answer.action === 'accept' && acceptedContent(ctx.mcpReq.inputResponses, 'confirm')?.['confirm'] === true ? 'yes' : 'no';
    }
    return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message, requestedSchema }) }, requestState: expected }) as unknown as CallToolResult;
  }
  if (!server.server.getClientCapabilities()?.elicitation) return 'cannot-ask';
  const answer = await ctx.mcpReq.elicitInput({ mode: 'form', message, requestedSchema });
  return answer.action === 'accept' && answer.content?.['confirm'] === true ? 'yes' : 'no';
}

const REFUSALS: Record<CommitRefusal, string> = {
  malformed: 'commit_token is not a token this server made: call without commit_token for a preview and use the token it returns',
  forged: 'commit_token is not a token this server made: call without commit_token for a preview and use the token it returns',
  'other-arguments': 'commit_token was made for other arguments: a token commits exactly what was previewed; call without commit_token to preview these arguments',
  expired: 'commit_token has expired: call without commit_token for a fresh preview',
  replayed: 'commit_token was used already: each token commits once; call without commit_token for a new preview',
};

function refused(tool: string, refusal: CommitRefusal): CallToolResult {
  return errorResult(`[svc-sdk] ${tool}: refused, nothing was changed: ${REFUSALS[refusal]}`);
}

/** A tool error the model can read: the SDK's own message (it names the request, never the key), redacted; anything else stays generic. */
function failure(tool: string, error: unknown, secrets: SecretFiles): CallToolResult {
  if (error instanceof ToolRefusal) return errorResult(secrets.redact(`[svc-sdk] ${tool}: ${error.message}`));
  if (error instanceof SvcError) return errorResult(secrets.redact(`[svc-sdk] ${tool} failed: ${error.message}`));
  return errorResult(secrets.redact(`[svc-sdk] ${tool} failed: ${error instanceof Error ? error.message : String(error)}`));
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Sends MCP progress notifications for the caller's progress token; without one, does nothing. */
function progressSender(ctx: ServerContext): ToolContext['progress'] {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return async () => {};
  return async (progress, total, message) => {
    await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, ...(total === undefined ? {} : { total }), message } }).catch(() => {});
  };
}
