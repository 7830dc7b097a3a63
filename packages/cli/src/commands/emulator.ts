// `svc-sdk emulator`: the in-memory emulator of the service, served on 127.0.0.1 until Ctrl+C.
import { DEFAULT_MAX_RECORDS, MAX_PAGE_SIZE, randomHex } from 'svc-sdk/internal';
import { integerFlag, parseCommandArgs, stringFlag, type ParsedArgs } from '../args.js';
import { UsageError, type CliCommand } from '../command.js';
import { println, untilStopped } from '../signals.js';

const HELP = `Usage: svc-sdk emulator [--port 4010] [--api-key vdr_…] [--delivery-delay-ms 2000] [--page-size <n>] [--max-records ${DEFAULT_MAX_RECORDS}]
                        [--credits 1000]

Runs the in-memory emulator of the service on http://127.0.0.1:<port> and prints its base URL and
a usable API key. Ctrl+C stops it. Every delivery attempt it makes is printed as one line.

Options:
  --port <n>               Port on 127.0.0.1 (0: any free one). Default 4010.
  --api-key <vdr_…>        Accept only this key. Default: any key starting with vdr_.
  --delivery-delay-ms <n>  Milliseconds before a delivery's first attempt. Default 2000.
  --page-size <n>          Every list answers pages of <n> items (1 to ${MAX_PAGE_SIZE}).
  --max-records <n>        Keeps at most <n> records of each kind (deals, rooms, transactions,
                           documents, webhooks, delivery attempts); each one past it drops the
                           oldest of its kind, with one warning. Default ${DEFAULT_MAX_RECORDS}.
  --credits <n>            The agents' credit balance at the start; each proposal (svc-sdk trigger
                           action.approval_required) consumes 1, with credit.low at 100 or fewer
                           and credit.exhausted at 0. Default 1000.
  --latency-ms <ms>        Faults: delays every answer.
  --unavailable-rate <0..1>  Faults: answers that share of requests 503.
  --reset-after-bytes <n>  Faults: resets the connection once n bytes of a request body arrived.
  -h, --help               Shows this help.`;

/** `svc-sdk emulator`. */
export const emulatorCommand: CliCommand = {
  name: 'emulator',
  summary: 'Runs the in-memory emulator of the service on 127.0.0.1 and prints its SVC_BASE_URL and SVC_API_KEY.',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommandArgs('emulator', args, {
      port: { type: 'string' },
      'api-key': { type: 'string' },
      'delivery-delay-ms': { type: 'string' },
      'page-size': { type: 'string' },
      'max-records': { type: 'string' },
      credits: { type: 'string' },
      ...FAULT_FLAGS,
    });
    const port = integerFlag(stringFlag(parsed, 'port') ?? '4010', '--port', 0, 65_535);
    const deliveryDelayMs = integerFlag(stringFlag(parsed, 'delivery-delay-ms') ?? '2000', '--delivery-delay-ms', 0, 86_400_000);
    const rawPageSize = stringFlag(parsed, 'page-size');
    const pageSize = rawPageSize === undefined ? undefined : integerFlag(rawPageSize, '--page-size', 1, MAX_PAGE_SIZE);
    const rawMaxRecords = stringFlag(parsed, 'max-records');
    const maxRecords = rawMaxRecords === undefined ? undefined : integerFlag(rawMaxRecords, '--max-records', 1, 100_000_000);
    const rawCredits = stringFlag(parsed, 'credits');
    const credits = rawCredits === undefined ? undefined : integerFlag(rawCredits, '--credits', 0, Number.MAX_SAFE_INTEGER);
    const apiKey = stringFlag(parsed, 'api-key');
    if (apiKey !== undefined && !/^vdr_\S+$/.test(apiKey)) throw new UsageError('--api-key must start with "vdr_" and go on after it');
    const faults = faultsFromFlags(parsed);

    // Loaded here, so that the other commands start without loading msw.
    const { createEmulator } = await import('svc-sdk/testing');
    const emulator = createEmulator({
      apiKey,
      deliveryDelayMs,
      pageSize,
      maxRecords,
      faults,
      actions: { credits },
      onDelivery: (attempt) =>
        println(
          io.stdout,
          `delivery ${attempt.event} → webhook ${attempt.webhookId} attempt ${attempt.attempt}: ${attempt.status ?? `failed: ${attempt.error}`} (${attempt.deliveryId})`,
        ),
    });
    let server;
    try {
      server = await emulator.listen(port);
    } catch (error) {
      if ((error as { code?: string }).code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use: pick another with --port`);
      throw error;
    }
    const key = apiKey ?? `vdr_local_${randomHex(12)}`;
    println(io.stdout, `svc-sdk emulator listening on ${server.url}`);
    println(io.stdout, `  SVC_BASE_URL=${server.url}`);
    println(io.stdout, `  SVC_API_KEY=${key}${apiKey === undefined ? '   (any key starting with vdr_ works)' : ''}`);
    const active = Object.entries(faults).filter(([, value]) => value !== undefined);
    if (active.length) println(io.stdout, `  faults: ${active.map(([name, value]) => `${name} ${value}`).join(', ')}`);
    println(io.stdout, 'Press Ctrl+C to stop.');
    await untilStopped(io.stop);
    await emulator.close();
    println(io.stdout, 'svc-sdk emulator stopped');
    return 0;
  },
};

const FAULT_FLAGS = {
  'latency-ms': { type: 'string' },
  'unavailable-rate': { type: 'string' },
  'reset-after-bytes': { type: 'string' },
} as const;

/** The emulator's faults from --latency-ms, --unavailable-rate and --reset-after-bytes. */
function faultsFromFlags(parsed: ParsedArgs) {
  const latency = stringFlag(parsed, 'latency-ms');
  const rate = stringFlag(parsed, 'unavailable-rate');
  const reset = stringFlag(parsed, 'reset-after-bytes');
  if (rate !== undefined && !/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(rate)) throw new UsageError(`--unavailable-rate must be a share from 0 to 1, such as 0.1, got "${rate}"`);
  return {
    latencyMs: latency === undefined ? undefined : integerFlag(latency, '--latency-ms', 0, 600_000),
    unavailableRate: rate === undefined ? undefined : Number(rate),
    resetAfterBytes: reset === undefined ? undefined : integerFlag(reset, '--reset-after-bytes', 1, Number.MAX_SAFE_INTEGER),
  };
}
