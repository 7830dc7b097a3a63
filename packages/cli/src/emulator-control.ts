// Calls to a running emulator's control routes (svc-sdk trigger): where it is, one request with the
// failures every route shares said once (nothing answers, the key refused, not an emulator), and
// the lines that list the deliveries an event was scheduled for.
import { httpUrlFlag } from './args.js';
import type { CliIO } from './command.js';
import { readPreview, statusLine, unreachable } from './http.js';
import { println } from './signals.js';

/** Where `trigger` looks for an emulator when neither --emulator nor SVC_BASE_URL says: `svc-sdk emulator`'s default. */
export const DEFAULT_EMULATOR_URL = 'http://127.0.0.1:4010';

/** The deliveries an event was scheduled for, as the control routes list them. */
export type FiredDeliveries = Array<{ webhook_id: number; delivery_id: string }>;

/** A running emulator as the command line names it. */
export interface EmulatorTarget {
  baseUrl: URL;
  /** Which setting named it: `--emulator`, `SVC_BASE_URL` or `the default`. */
  from: string;
  apiKey: string;
  timeoutMs: number;
  io: CliIO;
}

const FIX = 'start one (npx svc-sdk emulator) and set SVC_BASE_URL to the URL it prints, or pass --url <receiver> to send straight to a receiver';

/**
 * The emulator at --emulator, else SVC_BASE_URL, else the default, with SVC_API_KEY (any vdr_… key by default).
 *
 * @param flag The value of --emulator, if given.
 * @param timeoutMs How long each call waits for an answer.
 * @param io The command's environment and output.
 */
export function emulatorAt(flag: string | undefined, timeoutMs: number, io: CliIO): EmulatorTarget {
  const base = flag === undefined ? io.env['SVC_BASE_URL'] || DEFAULT_EMULATOR_URL : flag;
  const from = flag === undefined ? (io.env['SVC_BASE_URL'] ? 'SVC_BASE_URL' : 'the default') : '--emulator';
  const baseUrl = httpUrlFlag(base, from === 'SVC_BASE_URL' ? 'SVC_BASE_URL' : '--emulator', DEFAULT_EMULATOR_URL);
  return { baseUrl, from, apiKey: io.env['SVC_API_KEY'] || 'vdr_svc_sdk_cli', timeoutMs, io };
}

/**
 * POSTs `body` to the control route `path` (under /api/v1). Resolves with the status and the JSON
 * answer, or with exit code 1 once it printed why no usable answer came (nothing answers, the key refused).
 *
 * @param target The running emulator.
 * @param path The control route, such as CONTROL_ACTIONS_PATH.
 * @param body The JSON body; none when undefined.
 */
export async function callEmulator<T>(target: EmulatorTarget, path: string, body?: unknown): Promise<{ status: number; answer: T | undefined; response: Response } | number> {
  const { baseUrl, from, apiKey, timeoutMs, io } = target;
  const endpoint = `${baseUrl.href.replace(/\/+$/, '')}/api/v1${path}`;
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), authorization: `Bearer ${apiKey}`, 'user-agent': 'svc-sdk-cli' },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    println(io.stderr, `[svc-sdk] no emulator answers at ${baseUrl.origin} (${from}): ${unreachable(endpoint, error, timeoutMs)}. To fix: ${FIX}`);
    return 1;
  }
  const { text } = await readPreview(response.body);
  if (response.status === 401) {
    println(io.stderr, `[svc-sdk] the emulator at ${baseUrl.origin} refused the API key: set SVC_API_KEY to the key it accepts (svc-sdk emulator prints it)`);
    return 1;
  }
  let answer: T | undefined;
  try {
    answer = JSON.parse(text) as T;
  } catch {
    answer = undefined;
  }
  return { status: response.status, answer, response };
}

/**
 * Says that what answers is no svc-sdk emulator (its control route is missing); returns exit code 1.
 *
 * @param target The emulator as named.
 * @param path The control route that was missing.
 * @param response What answered instead.
 */
export function notAnEmulator(target: EmulatorTarget, path: string, response: Response): number {
  println(target.io.stderr, `[svc-sdk] ${target.baseUrl.origin} (${target.from}) is not an svc-sdk emulator: POST /api/v1${path} answered ${statusLine(response)}. To fix: ${FIX}`);
  return 1;
}

/**
 * One event's deliveries: a header line naming the event (`label` adds what it is about), then one line per webhook.
 *
 * @param io Where to print.
 * @param target The emulator that scheduled them.
 * @param label The event's kind, and what it says.
 * @param deliveries The deliveries scheduled for it.
 */
export function printFired(io: CliIO, target: EmulatorTarget, label: string, deliveries: FiredDeliveries): void {
  if (deliveries.length === 0) {
    println(io.stdout, `${label} → no webhook of the emulator at ${target.baseUrl.origin} subscribes to it: register one (svc-sdk listen --forward-to <your app>)`);
    return;
  }
  println(io.stdout, `${label} → ${deliveries.length} webhook${deliveries.length === 1 ? '' : 's'} of the emulator at ${target.baseUrl.origin}:`);
  for (const { webhook_id, delivery_id } of deliveries) println(io.stdout, `  webhook ${webhook_id}: delivery ${delivery_id}`);
}
