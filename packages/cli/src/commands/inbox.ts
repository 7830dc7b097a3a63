// `svc-sdk inbox demo | stats | ls | show | dead | replay | ui`: the durable webhook inbox (svc-sdk/inbox
// on BullMQ) seen and worked from a terminal: the whole of it on one machine (demo, inbox-demo.ts),
// listings by state, kind and time, one delivery whole, replay by the same filters (a dry-run count
// first, then a confirmation), and bull-board on loopback. Every command ends within --timeout; an unknown queue, an unreachable Redis and a
// wrong password are each one line with the fix (the library's words); no URL is printed with its
// credentials. BullMQ and bull-board are loaded when this command runs, never by the others.
import { createInterface } from 'node:readline/promises';
import type { BullmqInbox, InboxFilter, InboxListing, InboxStatus } from 'svc-sdk/inbox';
import { integerFlag, parseCommandArgs, stringFlag, type ParsedArgs } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';
import { statsText } from '../inbox-text.js';
import { untilStopped } from '../signals.js';
import { didYouMean } from '../suggest.js';
import { escapeControl } from '../terminal-text.js';
import { DEFAULT_REDIS, redisUrl } from '../redis-url.js';
import { DEMO_QUEUE, runInboxDemo } from './inbox-demo.js';

const STATUSES: readonly InboxStatus[] = ['waiting', 'active', 'delayed', 'completed', 'dead'];

const HELP = `Usage: svc-sdk inbox demo [--deliveries <n>] [--port <n>]
       svc-sdk inbox stats
       svc-sdk inbox ls [--status <s>] [--kind <kind>] [--since <time>] [--until <time>] [--limit <n>]
       svc-sdk inbox show <delivery_id>
       svc-sdk inbox dead
       svc-sdk inbox replay <delivery_id>
       svc-sdk inbox replay --all | [--status dead|completed] [--kind <kind>] [--since <time>] [--until <time>] [--dry-run] [--yes]
       svc-sdk inbox ui [--port <n>] [--host <h>] [--allow-replay]
   each with [--redis <url>] [--queue <name>] [--timeout <ms>]

The durable webhook inbox of svc-sdk/inbox (bullmqInbox), in the Redis its receivers and
workers share. Needs bullmq and ioredis installed (and @bull-board/api, @bull-board/express for ui).

  demo                  The inbox on this machine, with only a Redis: the emulator as the service, a
                        receiver on 127.0.0.1 (--port, default a free one) storing each delivery, a
                        worker processing them; fires --deliveries document.uploaded (default 5), prints
                        one line per processed delivery and the queue's counts, and exits. --deliveries 0
                        serves until Ctrl+C (fire more with svc-sdk trigger). Its queue: ${DEMO_QUEUE}.
  stats                 Deliveries waiting, running, delayed, processed (kept 24 h) and dead.
  ls                    One line per delivery: delivery id, status, kind, attempts, stored at, last error.
  show <delivery_id>    One delivery whole: its state, attempts, last error and body.
  dead                  One line per dead letter (as ls --status dead).
  replay <delivery_id>  Runs that delivery again, on purpose past deduplication (a dead letter,
                        or one already processed; one waiting or running is refused).
  replay <filters>      Counts the dead letters the filters select (--status completed: processed
                        ones), then asks before replaying them; --dry-run only counts, --yes does not ask.
  ui                    bull-board for the queue, on 127.0.0.1 by default, until Ctrl+C; sign in with any
                        user name and SVC_INBOX_UI_SECRET as the password. Read-only unless --allow-replay.

Options:
  --status <s>          waiting, active, delayed, completed or dead; several with commas.
  --kind <kind>         An event kind (document.uploaded); several with commas.
  --since, --until      When the receiver stored it: an ISO date (2026-03-01T14:00:00Z) or a time ago
                        (30m, 2h, 7d). --since is inclusive, --until exclusive.
  --redis <url>         The Redis, as redis://[user:password@]host:port[/db]. Default SVC_INBOX_REDIS,
                        else ${DEFAULT_REDIS}.
  --queue <name>        The inbox's queue. Default svc-webhooks (bullmqInbox's default); demo: ${DEMO_QUEUE}.
  --timeout <ms>        The most a command waits for Redis (demo: and for its next delivery). Default 10000.
  -h, --help            Shows this help.`;

const OPTIONS = {
  redis: { type: 'string' },
  queue: { type: 'string' },
  timeout: { type: 'string' },
  status: { type: 'string' },
  kind: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  all: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  port: { type: 'string' },
  deliveries: { type: 'string' },
  host: { type: 'string' },
  'allow-replay': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['demo', 'stats', 'ls', 'show', 'dead', 'replay', 'ui'] as const;
type Action = (typeof ACTIONS)[number];

/** `svc-sdk inbox`. */
export const inboxCommand: CliCommand = {
  name: 'inbox',
  summary: 'Works the durable webhook inbox (svc-sdk/inbox on BullMQ): demo, stats, ls, show, replay by filters, ui (bull-board).',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommandArgs('inbox', args, OPTIONS, true);
    if (parsed.values.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    const [given, target, ...extra] = parsed.positionals;
    if (!ACTIONS.includes(given as Action)) {
      throw new UsageError(given === undefined ? `inbox needs an action: ${ACTIONS.join(', ')} (svc-sdk inbox --help)` : `unknown inbox action "${escapeControl(given)}": ${didYouMean(given, ACTIONS)}use ${ACTIONS.join(', ')}`);
    }
    const action = given as Action;
    if (extra.length) throw new UsageError(`inbox ${action} takes at most one delivery id, got also: ${escapeControl(extra.join(' '))}`);
    if (target !== undefined && action !== 'show' && action !== 'replay') throw new UsageError(`inbox ${action} takes no delivery id`);
    if (action === 'show' && target === undefined) throw new UsageError('inbox show takes a delivery id: svc-sdk inbox show <delivery_id>');
    const filter = filterOf(parsed, action, target);
    const url = redisUrl(stringFlag(parsed, 'redis'), io.env.SVC_INBOX_REDIS);
    const timeoutMs = integerFlag(stringFlag(parsed, 'timeout') ?? '10000', '--timeout', 100, 600_000);
    const credential = action === 'ui' ? uiCredential(io) : undefined;
    if (action !== 'demo' && parsed.values.deliveries !== undefined) throw new UsageError(`inbox ${action} takes no --deliveries: it is demo's`);
    const demo = action === 'demo' ? demoFlags(parsed) : undefined;
    const queue = stringFlag(parsed, 'queue') ?? (demo ? DEMO_QUEUE : undefined);
    // The demo stores and works, so it hears the inbox's warnings (persistence, failing deliveries),
    // once its probe of Redis passed: that probe's trouble is said once, as the others' is.
    let speaking = false;
    const warn = demo ? (line: string) => void (speaking && io.stderr.write(`${line}\n`)) : undefined;
    const inbox = await openInbox(url, queue, timeoutMs, warn);
    try {
      switch (action) {
        case 'demo':
          return await runInboxDemo({ ...(demo as { port: number; deliveries: number }), inbox, url, queue: queue as string, timeoutMs, speak: () => (speaking = true) }, io);
        case 'stats':
          return await printStats(inbox, io);
        case 'ls':
          return printListing(await inbox.list({ ...filter, limit: limitOf(parsed) }), io);
        case 'dead':
          return printListing(await inbox.list({ status: 'dead' }), io, 'no dead letters');
        case 'show':
          return await printOne(inbox, target as string, io);
        case 'replay':
          return await replay(inbox, parsed, target, filter, io);
        case 'ui':
          return await serveUi(inbox, parsed, credential as string, io);
      }
    } finally {
      await inbox.close().catch(() => undefined);
    }
  },
};

/** --port and --deliveries of `inbox demo`, checked (a UsageError naming the one at fault). */
function demoFlags(parsed: ParsedArgs): { port: number; deliveries: number } {
  return {
    port: integerFlag(stringFlag(parsed, 'port') ?? '0', '--port', 0, 65_535),
    deliveries: integerFlag(stringFlag(parsed, 'deliveries') ?? '5', '--deliveries', 0, 10_000),
  };
}

/** The filter flags read and checked, or a UsageError naming the one at fault. */
function filterOf(parsed: ParsedArgs, action: Action, target: string | undefined): InboxFilter {
  const has = (name: string) => parsed.values[name] !== undefined;
  const filtering = ['status', 'kind', 'since', 'until'].filter(has);
  if (filtering.length && action !== 'ls' && action !== 'replay') throw new UsageError(`inbox ${action} takes no --${filtering[0]}: filters are for ls and replay`);
  if (action === 'replay') {
    const all = parsed.values.all === true;
    if (target !== undefined && (all || filtering.length)) throw new UsageError('inbox replay takes a delivery id, --all or filters (one of them)');
    if (all && filtering.length) throw new UsageError(`inbox replay --all replays every dead letter: drop --${filtering[0]}, or --all to replay by filters`);
    if (target === undefined && !all && !filtering.length) throw new UsageError('inbox replay takes a delivery id, --all, or filters (--kind, --since, --until, --status): svc-sdk inbox replay --help');
  } else if (parsed.values.all) throw new UsageError(`inbox ${action} takes no --all`);
  const statuses = listFlag(parsed, 'status');
  for (const status of statuses ?? []) {
    if (!STATUSES.includes(status as InboxStatus)) throw new UsageError(`--status "${escapeControl(status)}" must be one of ${STATUSES.join(', ')}`);
  }
  return {
    ...(statuses && { status: statuses as InboxStatus[] }),
    ...(listFlag(parsed, 'kind') && { kind: listFlag(parsed, 'kind') }),
    ...(has('since') && { since: timeFlag(stringFlag(parsed, 'since') as string, '--since') }),
    ...(has('until') && { until: timeFlag(stringFlag(parsed, 'until') as string, '--until') }),
  };
}

/** A comma-separated flag as a list (empty parts dropped), or undefined. */
function listFlag(parsed: ParsedArgs, name: string): string[] | undefined {
  const raw = stringFlag(parsed, name);
  return raw === undefined ? undefined : raw.split(',').map((part) => part.trim()).filter(Boolean);
}

const AGO = /^(\d+)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30m`, `2h`, `7d` ago, or an ISO date, as ms since the epoch; a UsageError otherwise. */
function timeFlag(raw: string, flag: string): number {
  const ago = AGO.exec(raw);
  if (ago) return Date.now() - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS];
  const ms = /^\d{4}-\d\d-\d\d/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`${flag} "${escapeControl(raw)}" must be an ISO date (2026-03-01T14:00:00Z) or a time ago (30m, 2h, 7d)`);
  return ms;
}

function limitOf(parsed: ParsedArgs): number {
  const raw = stringFlag(parsed, 'limit');
  return raw === undefined ? 1000 : integerFlag(raw, '--limit', 1, 100_000);
}

/** The dashboard's password, from SVC_INBOX_UI_SECRET: never made up and printed (a credential in no output). */
function uiCredential(io: CliIO): string {
  const secret = io.env.SVC_INBOX_UI_SECRET;
  if (!secret || secret.length < 16) {
    throw new UsageError('inbox ui needs SVC_INBOX_UI_SECRET, a secret of at least 16 characters people sign in with (any user name): export SVC_INBOX_UI_SECRET=$(openssl rand -hex 16)');
  }
  return secret;
}

/**
 * The inbox on `url`; a clear error when bullmq is not installed. With `warn` (the demo, which
 * stores): its warnings go there, and a Redis without an append-only file is warned about; without
 * it (a command that reads and exits), no warning about persistence (that is the receivers' concern).
 */
async function openInbox(url: string, queue: string | undefined, timeoutMs: number, warn?: (line: string) => void): Promise<BullmqInbox> {
  let module: typeof import('svc-sdk/inbox');
  try {
    module = await import('svc-sdk/inbox');
  } catch (error) {
    throw new Error(`[svc-sdk] inbox needs the bullmq and ioredis packages: npm install bullmq ioredis (${escapeControl(error instanceof Error ? error.message : String(error))})`, { cause: error });
  }
  // The demo's workers need BullMQ's own retry setting (maxRetriesPerRequest: null, which it sets itself when none is given).
  if (warn) return module.bullmqInbox({ connection: { url }, queue, warn, timeoutMs });
  return module.bullmqInbox({ connection: { url, maxRetriesPerRequest: 1 }, queue, acceptNoPersistence: true, warn: () => undefined, timeoutMs });
}

async function printStats(inbox: BullmqInbox, io: CliIO): Promise<number> {
  io.stdout.write(statsText(await inbox.stats()));
  return 0;
}

/** One line per delivery, then a count and what to do next. */
function printListing(items: InboxListing[], io: CliIO, empty = 'no deliveries match'): number {
  if (!items.length) {
    io.stdout.write(`${empty}\n`);
    return 0;
  }
  for (const item of items) {
    const attempts = `${item.attempts} attempt${item.attempts === 1 ? '' : 's'}`;
    const error = item.lastError ? `  ${escapeControl(item.lastError)}` : '';
    io.stdout.write(`${escapeControl(item.deliveryId)}  ${item.status}  ${escapeControl(item.kind)}  ${attempts}  ${new Date(item.receivedAt).toISOString()}${error}\n`);
  }
  const dead = items.filter((item) => item.status === 'dead').length;
  io.stdout.write(`${items.length} deliver${items.length === 1 ? 'y' : 'ies'}${dead ? ` (${dead} dead): svc-sdk inbox replay <delivery_id> (or by the same filters) runs them again` : ''}\n`);
  return 0;
}

async function printOne(inbox: BullmqInbox, deliveryId: string, io: CliIO): Promise<number> {
  const one = await inbox.show(deliveryId);
  if (!one) throw new Error(`[svc-sdk] inbox show: no delivery ${JSON.stringify(escapeControl(deliveryId))} in the inbox (processed ones are kept 24 h): svc-sdk inbox ls lists them`);
  const lines = [
    `delivery_id   ${escapeControl(one.deliveryId)}`,
    `kind          ${escapeControl(one.kind)}`,
    `status        ${one.status}`,
    `attempts      ${one.attempts}${one.workerDeaths ? ` (its worker died ${one.workerDeaths} time${one.workerDeaths === 1 ? '' : 's'})` : ''}`,
    `stored        ${new Date(one.receivedAt).toISOString()}`,
    ...(one.finishedAt ? [`finished      ${new Date(one.finishedAt).toISOString()}`] : []),
    ...(one.lastError ? [`last error    ${escapeControl(one.lastError)}`] : []),
    'body',
    escapeControl(one.event ? JSON.stringify(one.event, null, 2) : one.body),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** One id at once; filters or --all: the count first, then a confirmation (or --yes), or only the count (--dry-run). */
async function replay(inbox: BullmqInbox, parsed: ParsedArgs, target: string | undefined, filter: InboxFilter, io: CliIO): Promise<number> {
  if (target !== undefined) {
    const replayed = await inbox.replay(target);
    io.stdout.write(`replayed 1: ${escapeControl(replayed[0] ?? target)}\n`);
    return 0;
  }
  const selection = parsed.values.all === true ? ({ all: true } as const) : (filter as { status?: 'dead' | 'completed' });
  const ids = await inbox.replay({ ...selection, dryRun: true });
  const list = ids.slice(0, 20).map(escapeControl).join(', ') + (ids.length > 20 ? `, … (${ids.length - 20} more)` : '');
  if (!ids.length) {
    io.stdout.write('nothing to replay: no delivery matches\n');
    return 0;
  }
  io.stdout.write(`would replay ${ids.length}: ${list}\n`);
  if (parsed.values['dry-run'] === true) return 0;
  if (parsed.values.yes !== true) {
    if (!process.stdin.isTTY) throw new UsageError(`inbox replay: pass --yes to replay these ${ids.length} (no terminal to ask), or --dry-run to count only`);
    const prompt = createInterface({ input: process.stdin, output: io.stdout });
    const answer = await prompt.question(`replay ${ids.length}? [y/N] `).finally(() => prompt.close());
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.stdout.write('not replayed\n');
      return 1;
    }
  }
  const replayed = await inbox.replay(selection);
  io.stdout.write(`replayed ${replayed.length}${replayed.length < ids.length ? ` (${ids.length - replayed.length} moved meanwhile, not replayed)` : ''}\n`);
  return 0;
}

/** bull-board on loopback until Ctrl+C or SIGTERM. */
async function serveUi(inbox: BullmqInbox, parsed: ParsedArgs, credential: string, io: CliIO): Promise<number> {
  // The queue must exist: a dashboard of a typo would show nothing, as silently as a listing of zeros.
  await inbox.stats();
  const { serveInboxDashboard } = await import('svc-sdk/inbox');
  const served = await serveInboxDashboard(inbox, {
    credential,
    host: stringFlag(parsed, 'host') ?? '127.0.0.1',
    port: integerFlag(stringFlag(parsed, 'port') ?? '0', '--port', 0, 65_535),
    allowReplay: parsed.values['allow-replay'] === true,
  }).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (/Cannot find (module|package) '@bull-board/.test(message)) throw new Error('[svc-sdk] inbox ui needs bull-board: npm install @bull-board/api @bull-board/express', { cause: error });
    throw error;
  });
  io.stdout.write(`inbox dashboard on ${served.url} (${parsed.values['allow-replay'] === true ? 'replay allowed' : 'read-only'}): sign in with any user name and SVC_INBOX_UI_SECRET; Ctrl+C stops it\n`);
  await untilStopped(io.stop);
  await served.close();
  return 0;
}
