// `svc-sdk inbox stats | dead | replay <delivery_id> | replay --all`: the durable webhook inbox
// (svc-sdk/inbox on BullMQ) seen and worked from a terminal. BullMQ is loaded when this command
// runs, from the user's install (an optional peer), never by the other commands.
import type { BullmqInbox } from 'svc-sdk/inbox';
import { parseCommandArgs, stringFlag } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';
import { escapeControl } from '../terminal-text.js';

const DEFAULT_REDIS = 'redis://127.0.0.1:6379';

const HELP = `Usage: svc-sdk inbox stats [--redis <url>] [--queue <name>]
       svc-sdk inbox dead [--redis <url>] [--queue <name>]
       svc-sdk inbox replay <delivery_id> | --all [--redis <url>] [--queue <name>]

The durable webhook inbox of svc-sdk/inbox (bullmqInbox), in the Redis its receivers and
workers share. Needs the bullmq package installed beside svc-sdk.

  stats                 Deliveries waiting, running, delayed, processed (kept 24 h) and dead.
  dead                  One line per dead letter: delivery id, kind, attempts, last error.
  replay <delivery_id>  Runs that delivery again, on purpose past deduplication (a dead letter,
                        or one already processed).
  replay --all          Runs every dead letter again.

Options:
  --redis <url>         The Redis, as redis://[user:password@]host:port[/db]. Default SVC_INBOX_REDIS,
                        else ${DEFAULT_REDIS}.
  --queue <name>        The inbox's queue. Default svc-webhooks (bullmqInbox's default).
  -h, --help            Shows this help.`;

/** `svc-sdk inbox`. */
export const inboxCommand: CliCommand = {
  name: 'inbox',
  summary: 'Shows and replays the durable webhook inbox (svc-sdk/inbox on BullMQ): stats, dead letters, replay.',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommandArgs('inbox', args, { redis: { type: 'string' }, queue: { type: 'string' }, all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, true);
    if (parsed.values.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    const [action, target, ...extra] = parsed.positionals;
    if (action !== 'stats' && action !== 'dead' && action !== 'replay') {
      throw new UsageError(action === undefined ? 'inbox needs an action: stats, dead or replay (svc-sdk inbox --help)' : `unknown inbox action "${escapeControl(action)}": use stats, dead or replay`);
    }
    if (extra.length) throw new UsageError(`inbox ${action} takes at most one delivery id, got also: ${escapeControl(extra.join(' '))}`);
    const all = parsed.values.all === true;
    if (action === 'replay' && (target === undefined) === !all) throw new UsageError('inbox replay takes a delivery id or --all (one of them)');
    if (action !== 'replay' && (target !== undefined || all)) throw new UsageError(`inbox ${action} takes no delivery id`);
    const url = stringFlag(parsed, 'redis') ?? io.env.SVC_INBOX_REDIS ?? DEFAULT_REDIS;
    if (!/^rediss?:\/\//.test(url)) throw new UsageError(`--redis "${escapeControl(url)}" must be a redis:// or rediss:// URL, such as ${DEFAULT_REDIS}`);
    const inbox = await openInbox(url, stringFlag(parsed, 'queue'), io);
    if (!inbox) return 1;
    try {
      if (action === 'stats') return await printStats(inbox, io);
      if (action === 'dead') return await printDead(inbox, io);
      const replayed = await inbox.replay(all ? { all: true } : (target as string));
      io.stdout.write(
        replayed.length
          ? `replayed ${replayed.length}: ${replayed.map(escapeControl).join(', ')}\n`
          : all
            ? 'no dead letters to replay\n'
            : `${escapeControl(target as string)} is waiting or running already: not replayed\n`,
      );
      return 0;
    } catch (error) {
      io.stderr.write(`[svc-sdk] inbox ${action}: ${escapeControl(withoutPassword(messageOf(error), url))}\n`);
      return 1;
    } finally {
      await inbox.close().catch(() => undefined);
    }
  },
};

/** The inbox on `url`, or undefined (with why on stderr) when bullmq is not installed. */
async function openInbox(url: string, queue: string | undefined, io: CliIO): Promise<BullmqInbox | undefined> {
  let module: typeof import('svc-sdk/inbox');
  try {
    module = await import('svc-sdk/inbox');
  } catch (error) {
    io.stderr.write(`[svc-sdk] inbox needs the bullmq package: npm install bullmq (${escapeControl(messageOf(error))})\n`);
    return undefined;
  }
  // A command that reads and exits: no retrying connection, no warning about persistence (that is the receivers' concern).
  return module.bullmqInbox({
    connection: { url, maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => null, lazyConnect: false },
    queue,
    acceptNoPersistence: true,
    warn: () => undefined,
  });
}

async function printStats(inbox: BullmqInbox, io: CliIO): Promise<number> {
  const stats = await inbox.stats();
  for (const [name, count] of Object.entries(stats)) io.stdout.write(`${name.padEnd(10)}${count}\n`);
  return 0;
}

async function printDead(inbox: BullmqInbox, io: CliIO): Promise<number> {
  const dead = await inbox.deadLetters();
  if (!dead.length) {
    io.stdout.write('no dead letters\n');
    return 0;
  }
  for (const letter of dead) {
    io.stdout.write(`${escapeControl(letter.deliveryId)}  ${escapeControl(letter.kind)}  ${letter.attempts} attempt${letter.attempts === 1 ? '' : 's'}  ${escapeControl(letter.lastError)}\n`);
  }
  io.stdout.write(`${dead.length} dead letter${dead.length === 1 ? '' : 's'}: svc-sdk inbox replay <delivery_id> (or --all) runs them again\n`);
  return 0;
}

/** `message` with the URL's password, if any, replaced (a connection error may quote the URL). */
function withoutPassword(message: string, url: string): string {
  const password = /^rediss?:\/\/[^:@/]*:([^@/]+)@/.exec(url)?.[1];
  return password ? message.split(password).join('***') : message;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
