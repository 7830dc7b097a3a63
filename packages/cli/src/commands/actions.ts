// `svc-sdk actions pending | watch | show <id>`: the agent-action ledger (svc-sdk/actions over its
// Redis store) read from a terminal. Read-only: nothing here records, claims a handler or decides
// (the interface has no such operation; the GP decides in the service).
import type { ActionLedger, ActionRecord, LedgerStore } from 'svc-sdk/actions';
import { parseCommandArgs, stringFlag } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';
import { untilStopped } from '../signals.js';
import { escapeControl } from '../terminal-text.js';
import { DEFAULT_REDIS, redisUrl, withoutPassword } from '../redis-url.js';

/** createRedisLedgerStore's default prefix. */
export const DEFAULT_PREFIX = 'svc-sdk:actions:';

const HELP = `Usage: svc-sdk actions pending [--kind <kind>] [--run <run_id>] [--json] [--redis <url>] [--prefix <p>]
       svc-sdk actions watch [--json] [--redis <url>] [--prefix <p>]
       svc-sdk actions show <action_id> [--redis <url>] [--prefix <p>]

The agent-action ledger of svc-sdk/actions (createRedisLedgerStore), in the Redis its processes
share. Read-only: it records nothing and decides nothing (the GP decides, in the service).

  pending               One line per pending action, oldest proposal first: id, kind, run,
                        estimated expiry, proposal.
  watch                 The pending actions, then each decision as it is recorded and each new
                        pending action, until Ctrl+C.
  show <action_id>      The action as the ledger knows it (JSON).

Options:
  --kind <kind>         Only actions of this kind.
  --run <run_id>        Only actions of this agent run.
  --json                One JSON object per line.
  --redis <url>         The Redis, as redis://[user:password@]host:port[/db]. Default SVC_ACTIONS_REDIS,
                        else ${DEFAULT_REDIS}.
  --prefix <p>          The ledger's key prefix. Default ${DEFAULT_PREFIX} (createRedisLedgerStore's default).
  -h, --help            Shows this help.`;

/** `svc-sdk actions`. */
export const actionsCommand: CliCommand = {
  name: 'actions',
  summary: 'Shows the agent-action ledger (svc-sdk/actions on Redis): pending actions, decisions as they come, one action.',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommandArgs(
      'actions',
      args,
      { redis: { type: 'string' }, prefix: { type: 'string' }, kind: { type: 'string' }, run: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      true,
    );
    if (parsed.values.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    const [action, target, ...extra] = parsed.positionals;
    if (action !== 'pending' && action !== 'watch' && action !== 'show') {
      throw new UsageError(action === undefined ? 'actions needs an action: pending, watch or show (svc-sdk actions --help)' : `unknown actions action "${escapeControl(action)}": use pending, watch or show`);
    }
    if (extra.length || (action !== 'show' && target !== undefined)) throw new UsageError(`actions ${action} takes ${action === 'show' ? 'one action id' : 'no argument'}, got also: ${escapeControl([...(action === 'show' ? [] : [target]), ...extra].join(' '))}`);
    if (action === 'show' && target === undefined) throw new UsageError('actions show needs an action id: svc-sdk actions show <action_id>');
    const url = redisUrl(stringFlag(parsed, 'redis'), io.env.SVC_ACTIONS_REDIS);
    const json = parsed.values.json === true;
    const filter = { kind: stringFlag(parsed, 'kind'), runId: stringFlag(parsed, 'run') };
    const opened = await openLedger(url, stringFlag(parsed, 'prefix') ?? DEFAULT_PREFIX, { oneShot: true });
    try {
      if (action === 'show') {
        const found = await opened.ledger.get(target as string);
        if (!found) {
          io.stderr.write(`[svc-sdk] actions show: no action ${escapeControl(JSON.stringify(target))} in the ledger (prefix ${escapeControl(opened.prefix)})\n`);
          return 1;
        }
        // Line by line: the JSON's own line breaks stay, anything else that could steer a terminal is escaped.
        io.stdout.write(`${JSON.stringify(found, null, 2).split('\n').map(escapeControl).join('\n')}\n`);
        return 0;
      }
      const listed = new Set<string>();
      let count = 0;
      for await (const pending of opened.ledger.pending(filter)) {
        listed.add(pending.actionId);
        count += 1;
        io.stdout.write(`${line(pending, json)}\n`);
      }
      if (action === 'pending') {
        if (!json) io.stdout.write(`${count} pending\n`);
        return 0;
      }
      return await watch(opened, listed, filter, json, io);
    } catch (error) {
      io.stderr.write(`[svc-sdk] actions ${action}: ${escapeControl(withoutPassword(messageOf(error), url))}\n`);
      return 1;
    } finally {
      await opened.close();
    }
  },
};

/** A ledger over the Redis store, with what closes it. */
export interface OpenedLedger {
  ledger: ActionLedger;
  store: LedgerStore;
  prefix: string;
  close(): Promise<void>;
}

/**
 * The Redis ledger at `url` (read-only use: no persistence warning, that is the recorders' concern). A
 * `oneShot` command fails at once when Redis is down rather than queue commands; a server (`svc-sdk mcp
 * --actions-redis`) keeps reconnecting.
 */
export async function openLedger(url: string, prefix: string, { oneShot }: { oneShot: boolean }): Promise<OpenedLedger> {
  const [{ Redis }, { createActionLedger, createRedisLedgerStore }] = await Promise.all([import('ioredis'), import('svc-sdk/actions')]);
  const client = new Redis(url, oneShot ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => null, lazyConnect: true } : { lazyConnect: true });
  client.on('error', () => undefined);
  await client.connect();
  const store = createRedisLedgerStore(client, { prefix, acceptNoPersistence: true, warn: () => undefined });
  const ledger = createActionLedger({ store });
  return {
    ledger,
    store,
    prefix,
    async close() {
      await ledger.close();
      client.disconnect();
    },
  };
}

/** Prints each decision as the store tells it and each new pending action (read every second), until Ctrl+C or SIGTERM. */
async function watch(opened: OpenedLedger, listed: Set<string>, filter: { kind: string | undefined; runId: string | undefined }, json: boolean, io: CliIO): Promise<number> {
  const { ledger, store } = opened;
  const matches = (action: ActionRecord) => (filter.kind === undefined || action.kind === filter.kind) && (filter.runId === undefined || action.runId === filter.runId);
  const printed = new Set<string>();
  const decided = async (actionId: string) => {
    const action = await ledger.get(actionId).catch(() => undefined);
    if (!action?.decision || printed.has(actionId) || !matches(action)) return;
    printed.add(actionId);
    io.stdout.write(`${line(action, json)}\n`);
  };
  // The store's decision notifications: a read-only subscription (no handler is claimed, nothing is marked done).
  const unsubscribe = store.subscribe((actionId) => void decided(actionId));
  const poll = setInterval(() => {
    void (async () => {
      for await (const pending of ledger.pending(filter)) {
        if (listed.has(pending.actionId)) continue;
        listed.add(pending.actionId);
        io.stdout.write(`${line(pending, json)}\n`);
      }
      // A decision whose notification was lost (a reconnection): the ones listed as pending, read again.
      for (const actionId of listed) if (!printed.has(actionId)) await decided(actionId);
    })().catch(() => undefined);
  }, 1000);
  if (!json) io.stdout.write('watching: decisions and new pending actions as they are recorded (Ctrl+C to stop)\n');
  await untilStopped();
  clearInterval(poll);
  unsubscribe();
  return 0;
}

/** One action as a line: `act_1  pending  send_email  run run_1  expires ~2026-…  {"to":…}`, or its JSON. */
function line(action: ActionRecord, json: boolean): string {
  if (json) return escapeControl(JSON.stringify(action));
  const expiry = action.expiresAt ? `  expires ${action.expiresAt.estimated ? '~' : ''}${action.expiresAt.at}` : '';
  const detail =
    action.decision === undefined
      ? JSON.stringify(action.proposal ?? null)
      : action.decision.status === 'approved'
        ? `result ${JSON.stringify(action.decision.result ?? null)}`
        : action.decision.status === 'rejected'
          ? `reason ${JSON.stringify(action.decision.reason)}`
          : `after ${action.decision.expiryHours} h`;
  return escapeControl(`${action.actionId}  ${action.status}  ${action.kind}  run ${action.runId ?? '?'}${expiry}  ${detail}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
