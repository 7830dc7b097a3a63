// `svc-sdk trigger <kind>`: one event, either through a running emulator (to its subscribers, with
// the retry schedule) or signed and sent straight at a receiver's URL.
import { WEBHOOK_EVENT_KINDS, type EventKind, signPayload } from 'svc-sdk/webhooks';
import { buildEventBody, sampleEventData, CONTROL_EVENTS_PATH } from 'svc-sdk/internal';
import { httpUrlFlag, integerFlag, parseCommandArgs, stringFlag } from '../args.js';
import { didYouMean } from '../suggest.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';
import { readPreview, statusLine, unreachable } from '../http.js';
import { callEmulator, DEFAULT_EMULATOR_URL, emulatorAt, notAnEmulator, printFired, type FiredDeliveries } from '../emulator-control.js';
import { DECISIONS, playAction, SEQUENCE_KINDS } from '../trigger-actions.js';
import { println } from '../signals.js';

/** How long `trigger` waits for an answer, unless --timeout-ms says. */
const DEFAULT_TIMEOUT_MS = 30_000;

const HELP = `Usage: svc-sdk trigger <event-kind> [--data '<json>'] [--emulator <base-url>]
       svc-sdk trigger action.approved|action.rejected|action.expired --action <action-id>
       svc-sdk trigger <event-kind> --url <receiver-url> [--data '<json>']

Without --url: fires the event through a running emulator (svc-sdk emulator): every webhook
registered there that subscribes to the kind gets it, with the emulator's retry schedule.
The emulator is at --emulator, else SVC_BASE_URL, else ${DEFAULT_EMULATOR_URL}; the API key
is SVC_API_KEY (any vdr_… key when the emulator accepts any).

Agent actions play their sequence as the emulator's agents and GP do, each event with its
deliveries printed: action.approval_required proposes an action (its real action_id is
printed; --data's kind, run_id and proposal, and credit.low when the balance comes down to
100); action.approved, action.rejected and action.expired propose one and then decide it
(--data's result or reason), or decide the pending action --action names. credit.granted
tops the emulator's credits up (--data's amount and note). Other kinds fire as given.

With --url: signs one sample event (the spec's envelope, X-Svc-Signature) with the secret in
SVC_WEBHOOK_SECRET, sends it to the receiver and prints its answer (at most 4 KiB of it).
Exits 1 unless the receiver answers 2xx.

Options:
  --data <json>            The event's data, a JSON object. Default: sample data of the kind.
  --action <action-id>     Decide this pending action (approved, rejected, expired) instead
                           of proposing a new one first.
  --url <receiver-url>     Send straight to this receiver instead of through the emulator.
  --emulator <base-url>    The emulator's base URL, such as http://127.0.0.1:4010.
  --timeout-ms <n>         How long to wait for an answer. Default 30000.
  --secret <secret>        The signing secret, for tests only: a command line is visible to
                           every user of the machine (ps); prefer SVC_WEBHOOK_SECRET.
  -h, --help               Shows this help.

Event kinds: ${WEBHOOK_EVENT_KINDS.join(', ')}`;

/** `svc-sdk trigger`. */
export const triggerCommand: CliCommand = {
  name: 'trigger',
  summary: 'Fires an event through a running emulator, or sends one signed event straight to a receiver (--url).',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommandArgs(
      'trigger',
      args,
      { url: { type: 'string' }, action: { type: 'string' }, secret: { type: 'string' }, data: { type: 'string' }, emulator: { type: 'string' }, 'timeout-ms': { type: 'string' } },
      true,
    );
    const [kind, ...extra] = parsed.positionals;
    if (kind === undefined) throw new UsageError(`trigger needs an event kind, such as ${WEBHOOK_EVENT_KINDS[0]} (svc-sdk trigger --help)`);
    if (extra.length) throw new UsageError(`trigger takes one event kind, got also: ${extra.join(' ')}`);
    // A typo would otherwise send `{}` data under a kind no receiver handles; code that wants to test
    // unknown kinds can call emulator.trigger('any.kind') instead.
    if (!(WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(`unknown event kind "${kind}": ${didYouMean(kind, WEBHOOK_EVENT_KINDS)}use one of ${WEBHOOK_EVENT_KINDS.join(', ')}`);
    }
    const data = parseData(stringFlag(parsed, 'data'), kind);
    const timeoutMs = integerFlag(stringFlag(parsed, 'timeout-ms') ?? String(DEFAULT_TIMEOUT_MS), '--timeout-ms', 1, 600_000);
    const url = stringFlag(parsed, 'url');
    const actionId = stringFlag(parsed, 'action');
    if (actionId !== undefined && !(kind in DECISIONS)) {
      throw new UsageError(`--action decides an existing proposal: use it with ${Object.keys(DECISIONS).join(', ')} (${kind} ${kind === 'action.approval_required' ? 'proposes a new action' : 'decides no action'})`);
    }
    if (actionId === '') throw new UsageError('--action needs the action_id of a pending action, such as act_1 (svc-sdk trigger action.approval_required prints it)');
    if (url === undefined) {
      if (parsed.values['secret'] !== undefined) throw new UsageError('--secret goes with --url: through the emulator, each endpoint is signed with its own secret');
      if ((SEQUENCE_KINDS as readonly string[]).includes(kind)) return playAction(kind, data, actionId, emulatorAt(stringFlag(parsed, 'emulator'), timeoutMs, io));
      return throughEmulator(kind, data, stringFlag(parsed, 'emulator'), timeoutMs, io);
    }
    if (parsed.values['emulator'] !== undefined) throw new UsageError('pass either --url (a receiver) or --emulator, not both');
    if (actionId !== undefined) throw new UsageError('--action goes through the emulator, which holds the proposal: drop --url (with --url, pass the action_id in --data)');
    const receiver = httpUrlFlag(url, '--url', 'http://127.0.0.1:3000/webhooks');
    const secret = stringFlag(parsed, 'secret') ?? io.env['SVC_WEBHOOK_SECRET'];
    if (!secret) throw new UsageError('the signing secret is missing: set SVC_WEBHOOK_SECRET to the endpoint\'s secret (whsec_…)');
    return straightTo(receiver, kind, data, secret, timeoutMs, io);
  },
};

function parseData(raw: string | undefined, kind: EventKind): Record<string, unknown> {
  if (raw === undefined) return sampleEventData(kind);
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw new UsageError('--data must be a JSON object, such as \'{"balance":90}\'');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UsageError('--data must be a JSON object, such as \'{"balance":90}\'');
  return data as Record<string, unknown>;
}

async function straightTo(url: URL, kind: EventKind, data: Record<string, unknown>, secret: string, timeoutMs: number, io: CliIO): Promise<number> {
  const body = buildEventBody(kind, data);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-signature': await signPayload(body, secret), 'user-agent': 'svc-sdk-cli' },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    println(io.stderr, `[svc-sdk] ${unreachable(url, error, timeoutMs)}`);
    return 1;
  }
  println(io.stdout, `${kind} → ${url.href}: ${statusLine(response)}`);
  const { text, truncated } = await readPreview(response.body);
  if (text) println(io.stdout, truncated ? `${text}\n… (the answer goes on; only its first 4 KiB are shown)` : text);
  return response.ok ? 0 : 1;
}

interface TriggerAnswer {
  data?: { deliveries?: FiredDeliveries };
  error?: string;
}

async function throughEmulator(kind: EventKind, data: Record<string, unknown>, flag: string | undefined, timeoutMs: number, io: CliIO): Promise<number> {
  const emulator = emulatorAt(flag, timeoutMs, io);
  const called = await callEmulator<TriggerAnswer>(emulator, CONTROL_EVENTS_PATH, { event: kind, data });
  if (typeof called === 'number') return called;
  const deliveries = called.answer?.data?.deliveries;
  if (called.status !== 202 || !Array.isArray(deliveries)) return notAnEmulator(emulator, CONTROL_EVENTS_PATH, called.response);
  printFired(io, emulator, kind, deliveries);
  return 0;
}
