// Agent-action tools over an action ledger (svc-sdk/actions), listed only when the server was given
// one (`createMcpServer({ actions })`). Read-only by construction: the interface has no operation
// that approves or rejects (the GP decides, in the service), and a model must not decide: these
// tools list what waits for the GP and wait for the GP's decision, nothing else.
import * as z from 'zod/mini';
import type { ActionLedger, ActionRecord } from 'svc-sdk/actions';
import { pageArgs, pageFields, pageOf, ToolRefusal, type ReadTool, type ToolContext } from '../tool.js';

/** The longest `action_wait` waits, in seconds: a tool call is a request a host times out. */
export const MAX_WAIT_SECONDS = 300;

const action = () => z.looseObject({ actionId: z.string(), status: z.string(), kind: z.string() });

/** The ledger of the server, or a refusal naming how to give one (only reached if a tool is listed without it). */
function ledgerOf(context: ToolContext): ActionLedger {
  if (!context.actions) throw new ToolRefusal('no action ledger: start the server with createMcpServer({ actions: createActionLedger(...) })');
  return context.actions;
}

const pendingArgs = z.object({
  kind: z.optional(z.string().check(z.minLength(1), z.describe('Only actions of this kind, such as "send_email".'))),
  run_id: z.optional(z.string().check(z.minLength(1), z.describe('Only actions of this agent run.'))),
  expiring_within_minutes: z.optional(z.number().check(z.minimum(0), z.describe('Only actions whose estimated expiry is within this many minutes.'))),
  ...pageArgs,
});

const pendingResult = z.object({ actions: z.array(action()), ...pageFields });

/** `action_pending_list`: the actions waiting for the GP, oldest proposal first, with their estimated expiry. */
export const actionPendingList: ReadTool<z.infer<typeof pendingArgs>, z.infer<typeof pendingResult>> = {
  kind: 'read',
  name: 'action_pending_list',
  title: 'List pending agent actions',
  description: 'Lists the agent actions waiting for the GP (proposal, kind, run, estimated expiry), oldest first. Read-only: only the GP approves or rejects, in the service.',
  operations: [],
  needs: 'actions',
  idempotent: true,
  args: pendingArgs,
  result: pendingResult,
  async run(args, context) {
    const pending: ActionRecord[] = [];
    const filter = { kind: args.kind, runId: args.run_id, expiringWithinMs: args.expiring_within_minutes === undefined ? undefined : args.expiring_within_minutes * 60_000 };
    for await (const entry of ledgerOf(context).pending(filter)) pending.push(entry);
    const { items, ...page } = pageOf(pending, args);
    return { actions: items.map((entry) => ({ ...entry })), ...page };
  },
  render: ({ actions, next_cursor }) =>
    `${actions.length} pending action(s)${actions.length ? ': ' : ''}${actions.map((entry) => `${entry.actionId} (${entry.kind})`).join(', ')}${next_cursor ? ' (more: pass next_cursor)' : ''}.`,
};

const waitArgs = z.object({
  action_id: z.string().check(z.minLength(1), z.describe('The action id (from action_pending_list).')),
  timeout_seconds: z.optional(z.number().check(z.minimum(0), z.maximum(MAX_WAIT_SECONDS), z.describe(`How long to wait, at most ${MAX_WAIT_SECONDS} s. Default 60.`))),
});

/** `action_wait`: waits for the GP's decision on one action (or its expiry), up to a timeout. */
export const actionWait: ReadTool<z.infer<typeof waitArgs>, { action_id: string; status: string; decision?: Record<string, unknown> }> = {
  kind: 'read',
  name: 'action_wait',
  title: 'Wait for a GP decision',
  description: 'Waits for the GP to approve or reject an agent action (or for it to expire), up to timeout_seconds; answers status "timeout" if still pending. Never decides.',
  operations: [],
  needs: 'actions',
  idempotent: true,
  args: waitArgs,
  result: z.object({ action_id: z.string(), status: z.string(), decision: z.optional(z.looseObject({})) }),
  async run({ action_id, timeout_seconds = 60 }, context) {
    const result = await ledgerOf(context).waitForDecision(action_id, { timeoutMs: timeout_seconds * 1000, signal: context.signal });
    return result.status === 'timeout' ? { action_id, status: 'timeout' } : { action_id, status: result.status, decision: { ...result } };
  },
  render: ({ action_id, status }) => (status === 'timeout' ? `No decision on ${action_id} yet (still pending).` : `Action ${action_id}: ${status}.`),
};
