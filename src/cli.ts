#!/usr/bin/env node
// The `svc-sdk` bin: `emulator` runs the local emulator over HTTP, `trigger` sends one signed event.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { WEBHOOK_EVENT_KINDS } from './webhooks/event-kinds.js';
import { signPayload } from './webhooks/index.js';
import { buildEventBody, sampleEventData } from './testing/events.js';
import { EMULATOR_PEERS, isPeerNotFound, MissingPeerError, missingPeersMessage, type EmulatorPeer } from './testing/peers.js';
import { isHttpUrl } from './shared/parse-url.js';
import { randomHex } from './shared/hex.js';
import { UsageError } from './cli/command.js';
import { upload } from './cli/commands/upload.js';

const HELP = `Usage: svc-sdk <command> [options]

Commands:
  emulator [--port 4010] [--api-key vdr_…] [--delivery-delay-ms 2000] [--page-size <n>]
      Runs the in-memory emulator of the service on http://127.0.0.1:<port>
      and prints its base URL and a usable API key. Ctrl+C stops it.
      --page-size makes every list answer pages of <n> items.
      Faults: --latency-ms <ms> delays every answer, --unavailable-rate <0..1>
      answers that share of requests 503, --reset-after-bytes <n> resets the
      connection once n bytes of a request body arrived.
      Needs the optional peers: npm install -D msw @hono/node-server minisearch
  trigger <event-kind> --url <receiver-url> --secret <secret> [--data '<json>']
      Sends one signed sample event (the spec's envelope, X-Svc-Signature)
      to a receiver and prints its answer; exits 1 unless it answers 2xx.
  ${upload.summary}

Options:
  -h, --help   Shows this help.

Event kinds: ${WEBHOOK_EVENT_KINDS.join(', ')}`;


async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('a command is required: "emulator" or "trigger" (svc-sdk --help)');
  if (command === '-h' || command === '--help' || command === 'help') return help();
  if (command === 'emulator') return runEmulator(rest);
  if (command === 'trigger') return runTrigger(rest);
  if (command === 'upload') return upload.run(rest, { stdout: process.stdout, stderr: process.stderr, env: process.env });
  throw new UsageError(`unknown command "${command}": use "emulator" or "trigger" (svc-sdk --help)`);
}

interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

function parse(args: string[], options: ParseArgsOptionsConfig, positionals: boolean): Parsed {
  try {
    const parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: positionals, strict: true });
    return { values: parsed.values as Parsed['values'], positionals: parsed.positionals };
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\. To specify.*$/s, '')} (svc-sdk --help)`);
  }
}

async function runEmulator(args: string[]): Promise<number> {
  const { values } = parse(
    args,
    {
      port: { type: 'string' },
      'api-key': { type: 'string' },
      'delivery-delay-ms': { type: 'string' },
      'page-size': { type: 'string' },
      ...FAULT_FLAGS,
    },
    false,
  );
  if (values['help']) return help();
  const port = toInteger((values['port'] as string | undefined) ?? '4010', '--port', 0, 65_535);
  const deliveryDelayMs = toInteger((values['delivery-delay-ms'] as string | undefined) ?? '2000', '--delivery-delay-ms', 0, 86_400_000);
  const rawPageSize = values['page-size'] as string | undefined;
  const pageSize = rawPageSize === undefined ? undefined : toInteger(rawPageSize, '--page-size', 1, 1000);
  const apiKey = values['api-key'] as string | undefined;
  if (apiKey !== undefined && !/^vdr_\S+$/.test(apiKey)) throw new UsageError('--api-key must start with "vdr_" and go on after it');
  const faults = faultsFromFlags(values);

  const missing = await missingPeers();
  if (missing.length > 0) throw new MissingPeerError(missingPeersMessage(missing, 'svc-sdk emulator'));
  // Loaded here so `trigger` works without the emulator's optional peers.
  const { createEmulator } = await import('./testing/index.js');
  const emulator = createEmulator({
    apiKey,
    deliveryDelayMs,
    pageSize,
    faults,
    onDelivery: (attempt) =>
      console.log(
        `delivery ${attempt.event} → webhook ${attempt.webhookId} attempt ${attempt.attempt}: ${attempt.status ?? attempt.error} (${attempt.deliveryId})`,
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
  console.log(`svc-sdk emulator listening on ${server.url}`);
  console.log(`  SVC_BASE_URL=${server.url}`);
  console.log(`  SVC_API_KEY=${key}${apiKey === undefined ? '   (any key starting with vdr_ works)' : ''}`);
  const active = Object.entries(faults).filter(([, value]) => value !== undefined);
  if (active.length) console.log(`  faults: ${active.map(([name, value]) => `${name} ${value}`).join(', ')}`);
  console.log('Press Ctrl+C to stop.');

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await emulator.close();
  console.log('svc-sdk emulator stopped');
  // fetch's idle keep-alive sockets to receivers would hold the process a few seconds more.
  process.exit(0);
}

async function runTrigger(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    { url: { type: 'string' }, secret: { type: 'string' }, data: { type: 'string' } },
    true,
  );
  if (values['help']) return help();
  const [kind, ...extra] = positionals;
  if (kind === undefined) throw new UsageError(`trigger needs an event kind, such as ${WEBHOOK_EVENT_KINDS[0]} (svc-sdk --help)`);
  if (extra.length) throw new UsageError(`trigger takes one event kind, got also: ${extra.join(' ')}`);
  // A typo would otherwise send `{}` data under a kind no receiver handles; code that wants to test
  // unknown kinds can call emulator.trigger('any.kind') instead.
  if (!(WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind)) {
    throw new UsageError(`unknown event kind "${kind}": use one of ${WEBHOOK_EVENT_KINDS.join(', ')}`);
  }
  const url = values['url'] as string | undefined;
  const secret = values['secret'] as string | undefined;
  if (!url || !isHttpUrl(url)) {
    throw new UsageError('--url is required: the absolute http(s) URL of your receiver');
  }
  if (!secret) throw new UsageError('--secret is required: the endpoint\'s signing secret');
  let data = sampleEventData(kind);
  if (values['data'] !== undefined) {
    try {
      data = JSON.parse(values['data'] as string) as Record<string, unknown>;
    } catch {
      throw new UsageError('--data must be a JSON object, such as \'{"balance":90}\'');
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new UsageError('--data must be a JSON object');
  }
  const body = buildEventBody(kind, data);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-signature': await signPayload(body, secret) },
      body,
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    console.error(`[svc-sdk] could not reach ${url}: ${cause}`);
    return 1;
  }
  const text = await response.text();
  console.log(`${kind} → ${url}: ${response.status} ${response.statusText}`);
  if (text) console.log(text);
  return response.ok ? 0 : 1;
}

/** The emulator's peers that cannot be imported from here (the consumer's node_modules). */
async function missingPeers(): Promise<EmulatorPeer[]> {
  const probes: Record<EmulatorPeer, () => Promise<unknown>> = {
    msw: () => import('msw/http'),
    '@hono/node-server': () => import('@hono/node-server'),
    minisearch: () => import('minisearch'),
  };
  const missing: EmulatorPeer[] = [];
  for (const peer of EMULATOR_PEERS) {
    try {
      await probes[peer]();
    } catch (error) {
      if (!isPeerNotFound(error, peer)) throw error;
      missing.push(peer);
    }
  }
  return missing;
}

const FAULT_FLAGS = {
  'latency-ms': { type: 'string' },
  'unavailable-rate': { type: 'string' },
  'reset-after-bytes': { type: 'string' },
} as const;

/** The emulator's faults from --latency-ms, --unavailable-rate and --reset-after-bytes. */
function faultsFromFlags(values: Parsed['values']) {
  const flag = (name: keyof typeof FAULT_FLAGS) => values[name] as string | undefined;
  const latency = flag('latency-ms');
  const rate = flag('unavailable-rate');
  const reset = flag('reset-after-bytes');
  if (rate !== undefined && !(/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(rate))) throw new UsageError(`--unavailable-rate must be a share from 0 to 1, such as 0.1, got "${rate}"`);
  return {
    latencyMs: latency === undefined ? undefined : toInteger(latency, '--latency-ms', 0, 600_000),
    unavailableRate: rate === undefined ? undefined : Number(rate),
    resetAfterBytes: reset === undefined ? undefined : toInteger(reset, '--reset-after-bytes', 1, Number.MAX_SAFE_INTEGER),
  };
}

function help(): number {
  console.log(HELP);
  return 0;
}

function toInteger(raw: string, flag: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`[svc-sdk] ${error.message}`);
      process.exitCode = 2;
    } else if (error instanceof Error && error.message.startsWith('[svc-sdk] ')) {
      // Ours, and it says what to do (a missing peer names the install command): the line alone.
      console.error(error.message);
      process.exitCode = 1;
    } else {
      console.error(error);
      process.exitCode = 1;
    }
  },
);
