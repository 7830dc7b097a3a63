// `svc-sdk trigger <kind>`: one event, either through a running emulator (to its subscribers, with
// the retry schedule) or signed and sent straight at a receiver's URL.
import { WEBHOOK_EVENT_KINDS, type EventKind, signPayload } from 'svc-sdk/webhooks';
import { buildEventBody, sampleEventData, CONTROL_EVENTS_PATH } from 'svc-sdk/internal';
import { httpUrlFlag, integerFlag, parseCommandArgs, stringFlag } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';
import { readPreview, statusLine, unreachable } from '../http.js';
import { println } from '../signals.js';

/** Where `trigger` looks for an emulator when neither --emulator nor SVC_BASE_URL says: `svc-sdk emulator`'s default. */
const DEFAULT_EMULATOR_URL = 'http://127.0.0.1:4010';
/** How long `trigger` waits for an answer, unless --timeout-ms says. */
const DEFAULT_TIMEOUT_MS = 30_000;

const HELP = `Usage: svc-sdk trigger <event-kind> [--data '<json>'] [--emulator <base-url>]
       svc-sdk trigger <event-kind> --url <receiver-url> [--data '<json>']

Without --url: fires the event through a running emulator (svc-sdk emulator): every webhook
registered there that subscribes to the kind gets it, with the emulator's retry schedule.
The emulator is at --emulator, else SVC_BASE_URL, else ${DEFAULT_EMULATOR_URL}; the API key
is SVC_API_KEY (any vdr_… key when the emulator accepts any).

With --url: signs one sample event (the spec's envelope, X-Svc-Signature) with the secret in
SVC_WEBHOOK_SECRET, sends it to the receiver and prints its answer (at most 4 KiB of it).
Exits 1 unless the receiver answers 2xx.

Options:
  --data <json>            The event's data, a JSON object. Default: sample data of the kind.
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
      { url: { type: 'string' }, secret: { type: 'string' }, data: { type: 'string' }, emulator: { type: 'string' }, 'timeout-ms': { type: 'string' } },
      true,
    );
    const [kind, ...extra] = parsed.positionals;
    if (kind === undefined) throw new UsageError(`trigger needs an event kind, such as ${WEBHOOK_EVENT_KINDS[0]} (svc-sdk trigger --help)`);
    if (extra.length) throw new UsageError(`trigger takes one event kind, got also: ${extra.join(' ')}`);
    // A typo would otherwise send `{}` data under a kind no receiver handles; code that wants to test
    // unknown kinds can call emulator.trigger('any.kind') instead.
    if (!(WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(`unknown event kind "${kind}": use one of ${WEBHOOK_EVENT_KINDS.join(', ')}`);
    }
    const data = parseData(stringFlag(parsed, 'data'), kind);
    const timeoutMs = integerFlag(stringFlag(parsed, 'timeout-ms') ?? String(DEFAULT_TIMEOUT_MS), '--timeout-ms', 1, 600_000);
    const url = stringFlag(parsed, 'url');
    if (url === undefined) {
      if (parsed.values['secret'] !== undefined) throw new UsageError('--secret goes with --url: through the emulator, each endpoint is signed with its own secret');
      return throughEmulator(kind, data, stringFlag(parsed, 'emulator'), timeoutMs, io);
    }
    if (parsed.values['emulator'] !== undefined) throw new UsageError('pass either --url (a receiver) or --emulator, not both');
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
  data?: { deliveries?: Array<{ webhook_id: number; delivery_id: string }> };
  error?: string;
}

async function throughEmulator(kind: EventKind, data: Record<string, unknown>, flag: string | undefined, timeoutMs: number, io: CliIO): Promise<number> {
  const base = flag === undefined ? (io.env['SVC_BASE_URL'] || DEFAULT_EMULATOR_URL) : flag;
  const from = flag === undefined ? (io.env['SVC_BASE_URL'] ? 'SVC_BASE_URL' : 'the default') : '--emulator';
  const baseUrl = httpUrlFlag(base, from === 'SVC_BASE_URL' ? 'SVC_BASE_URL' : '--emulator', DEFAULT_EMULATOR_URL);
  const endpoint = `${baseUrl.href.replace(/\/+$/, '')}/api/v1${CONTROL_EVENTS_PATH}`;
  const apiKey = io.env['SVC_API_KEY'] || 'vdr_svc_sdk_cli';
  const fix = 'start one (npx svc-sdk emulator) and set SVC_BASE_URL to the URL it prints, or pass --url <receiver> to send straight to a receiver';
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'user-agent': 'svc-sdk-cli' },
      body: JSON.stringify({ event: kind, data }),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    println(io.stderr, `[svc-sdk] no emulator answers at ${baseUrl.origin} (${from}): ${unreachable(endpoint, error, timeoutMs)}. To fix: ${fix}`);
    return 1;
  }
  const { text } = await readPreview(response.body);
  if (response.status === 401) {
    println(io.stderr, `[svc-sdk] the emulator at ${baseUrl.origin} refused the API key: set SVC_API_KEY to the key it accepts (svc-sdk emulator prints it)`);
    return 1;
  }
  let answer: TriggerAnswer | undefined;
  try {
    answer = JSON.parse(text) as TriggerAnswer;
  } catch {
    answer = undefined;
  }
  const deliveries = answer?.data?.deliveries;
  if (response.status !== 202 || !Array.isArray(deliveries)) {
    println(io.stderr, `[svc-sdk] ${baseUrl.origin} (${from}) is not an svc-sdk emulator: POST ${new URL(endpoint).pathname} answered ${statusLine(response)}. To fix: ${fix}`);
    return 1;
  }
  if (deliveries.length === 0) {
    println(io.stdout, `${kind} → no webhook of the emulator at ${baseUrl.origin} subscribes to it: register one (svc-sdk listen --forward-to <your app>)`);
    return 0;
  }
  println(io.stdout, `${kind} → ${deliveries.length} webhook${deliveries.length === 1 ? '' : 's'} of the emulator at ${baseUrl.origin}:`);
  for (const { webhook_id, delivery_id } of deliveries) println(io.stdout, `  webhook ${webhook_id}: delivery ${delivery_id}`);
  return 0;
}
