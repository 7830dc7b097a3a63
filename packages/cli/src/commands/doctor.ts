// `svc-sdk doctor`: can this machine use the service? Runtime and versions, the route and trust the
// library resolves (svc-sdk/internal's resolveNetwork: the Client's own rules), DNS, TCP, CONNECT
// and TLS as one request met them, the key, the clock against the service's Date, and optionally a
// webhook URL's reachability. One line per check, each failure with its fix; exit 0 only if all pass.
import { readFileSync } from 'node:fs';
import { APIError, Client, ValidationError } from 'svc-sdk';
import { DEFAULT_TOLERANCE_MS, FUTURE_SKEW_MS, VERSION, describeFetchFailure, redactUrl, resolveNetwork, type NetworkRoute } from 'svc-sdk/internal';
import { httpUrlFlag, integerFlag, parseCommandArgs, stringFlag } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';
import { targetOf, watchConnections } from '../doctor-connections.js';
import { networkChecks, type ServiceTarget } from '../doctor-network.js';
import { checkLine, duration, fail, pass, skip, type Check } from '../doctor-report.js';
import { println } from '../signals.js';
import { escapeControl } from '../terminal-text.js';

const DEFAULT_TIMEOUT_MS = 10_000;
/** The spec's one read operation: a page of transactions, nothing written (GET /api/v1/svc/transactions). */
const READ_PATH = '/svc/transactions';
/** Sent in place of a missing or malformed key, so the network and the clock are still checked (the key line fails). */
const NO_KEY = 'vdr_svc_sdk_doctor_no_key';

const HELP = `Usage: svc-sdk doctor [--base-url <url>] [--webhook-url <url>] [--timeout <ms>]
                     [--proxy <url> | --no-proxy] [--ca <file> | --ca system] [--cert <file> --cert-key <file>]

Checks that this machine can use the service, one line per check, each failure with its fix:
the runtime and versions; the route to the service (direct, or which proxy: HTTPS_PROXY,
HTTP_PROXY and NO_PROXY as the Client reads them) and the certificates trusted; DNS, TCP, the
proxy's CONNECT and TLS; the API key (one read call: a page of transactions); this machine's
clock against the service's Date header (receivers refuse deliveries stamped more than 5 min
ahead); and with --webhook-url, whether your receiver answers from here.

Options:
  --base-url <url>      The service. Default: SVC_BASE_URL.
  --api-key <vdr_…>     The key. Default: SVC_API_KEY (prefer it: a command line is visible
                        to every user of the machine). Never printed.
  --proxy <url>         A proxy instead of the environment's (http://user:password@host:3128).
  --no-proxy            Go direct, whatever HTTPS_PROXY says.
  --ca <file>           PEM certificates to trust besides Node's and NODE_EXTRA_CA_CERTS;
                        "system" for the operating system's store.
  --cert <file>         A client certificate (PEM) for mutual TLS, with --cert-key <file>.
  --webhook-url <url>   Your receiver: sent an unsigned POST, which it should refuse with a 4xx.
  --timeout <ms>        How long each network check may take, 1 to 600000. Default 10000.
  -h, --help            Shows this help.

Exit code 0 when every check passes, 1 when one fails, 2 on a misuse.`;

/** `svc-sdk doctor`. */
export const doctorCommand: CliCommand = {
  name: 'doctor',
  summary: 'Checks this machine against the service: route, proxy, TLS, key, clock, webhook URL.',
  help: HELP,
  async run(args, io) {
    const options = parseOptions(args, io);
    const colour = io.stdout.isTTY === true && !io.env.NO_COLOR;
    const print = (check: Check) => {
      println(io.stdout, checkLine(check, colour));
      return check;
    };
    println(io.stdout, `svc-sdk doctor: ${escapeControl(escapeUrl(options.baseUrl))}`);
    const checks: Check[] = [print(runtimeCheck())];
    checks.push(...(await serviceChecks(options, io)).map(print));
    if (options.webhookUrl) checks.push(print(await webhookCheck(options, io)));
    const failed = checks.filter((check) => check.status === 'fail').length;
    println(io.stdout, failed === 0 ? 'every check passed' : `${failed} check${failed === 1 ? '' : 's'} failed`);
    return failed === 0 ? 0 : 1;
  },
};

interface DoctorOptions {
  baseUrl: URL;
  apiKey: string | undefined;
  keySource: string;
  network: { proxy?: string | false; ca?: string | 'system'; cert?: string; key?: string };
  webhookUrl: URL | undefined;
  timeoutMs: number;
}

function parseOptions(args: string[], io: CliIO): DoctorOptions {
  const parsed = parseCommandArgs('doctor', args, {
    'base-url': { type: 'string' },
    'api-key': { type: 'string' },
    proxy: { type: 'string' },
    'no-proxy': { type: 'boolean' },
    ca: { type: 'string' },
    cert: { type: 'string' },
    'cert-key': { type: 'string' },
    'webhook-url': { type: 'string' },
    timeout: { type: 'string' },
  });
  const rawBase = stringFlag(parsed, 'base-url') ?? io.env.SVC_BASE_URL;
  if (!rawBase) throw new UsageError('the service URL is missing: set SVC_BASE_URL or pass --base-url https://…');
  const baseUrl = httpUrlFlag(rawBase, stringFlag(parsed, 'base-url') === undefined ? 'SVC_BASE_URL' : '--base-url', 'https://api.example.com');
  if (baseUrl.username || baseUrl.password) throw new UsageError('the service URL carries a user:password@, which requests to the service cannot: remove it (the API key goes in SVC_API_KEY)');
  const network: DoctorOptions['network'] = {};
  const proxy = stringFlag(parsed, 'proxy');
  if (proxy !== undefined && parsed.values['no-proxy']) throw new UsageError('--proxy and --no-proxy exclude each other: pass one');
  if (proxy !== undefined) network.proxy = httpUrlFlag(proxy, '--proxy', 'http://proxy.example:3128').href;
  if (parsed.values['no-proxy']) network.proxy = false;
  const ca = stringFlag(parsed, 'ca');
  if (ca !== undefined) network.ca = ca === 'system' ? 'system' : pemFile(ca, '--ca');
  const cert = stringFlag(parsed, 'cert');
  const certKey = stringFlag(parsed, 'cert-key');
  if (cert !== undefined || certKey !== undefined) {
    if (cert === undefined || certKey === undefined) throw new UsageError('--cert and --cert-key go together: pass both for mutual TLS');
    Object.assign(network, { cert: pemFile(cert, '--cert'), key: pemFile(certKey, '--cert-key') });
  }
  const webhook = stringFlag(parsed, 'webhook-url');
  const flagKey = stringFlag(parsed, 'api-key');
  return {
    baseUrl,
    apiKey: flagKey ?? (io.env.SVC_API_KEY || undefined),
    keySource: flagKey === undefined ? 'SVC_API_KEY' : '--api-key',
    network,
    webhookUrl: webhook === undefined ? undefined : httpUrlFlag(webhook, '--webhook-url', 'https://hooks.example.com/svc'),
    timeoutMs: integerFlag(stringFlag(parsed, 'timeout') ?? String(DEFAULT_TIMEOUT_MS), '--timeout', 1, 600_000),
  };
}

function pemFile(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): pass a PEM file`);
  }
}

const escapeUrl = (url: URL) => redactUrl(url.href);

/** Node, the library and this CLI: their versions, which must agree (the tools pin the library). */
function runtimeCheck(): Check {
  const node = process.versions.node;
  const cli = cliVersion();
  const text = `Node ${node}${process.versions.undici ? ` (fetch: undici ${process.versions.undici})` : ''}, svc-sdk ${VERSION}, @svc-sdk/cli ${cli ?? 'unknown'}`;
  if (Number(node.split('.')[0]) < 22) return fail('runtime', text, 'svc-sdk needs Node 22 or newer: install a current Node (nodejs.org, nvm install 24)');
  if (cli !== undefined && cli !== VERSION) return fail('runtime', `${text}: they differ`, `install the same version of both: npm install svc-sdk@${cli} @svc-sdk/cli@${cli}`);
  return pass('runtime', text);
}

/** This CLI's version, from its package.json (beside dist/ in the package, two folders up from src/commands/). */
function cliVersion(): string | undefined {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === '@svc-sdk/cli') return manifest.version;
    } catch {
      // Not there: the other layout.
    }
  }
  return undefined;
}

/** The answer of the read call: its status and Date, or why none came; and when it was sent and answered. */
interface Answer {
  status?: number;
  statusText?: string;
  date?: string | null;
  failure?: unknown;
  sentAt: number;
  answeredAt: number;
}

async function serviceChecks(options: DoctorOptions, io: CliIO): Promise<Check[]> {
  let network: NetworkRoute;
  try {
    network = await resolveNetwork(options.network, io.env);
  } catch (error) {
    const message = error instanceof ValidationError ? error.issues.map((issue) => issue.message).join('; ') : (error as Error).message.replace(/^\[svc-sdk\] /, '');
    // A bad --ca / --cert (the Client's own check), or undici missing for a proxy or a ca (its message is the install line).
    return [fail('route', message, error instanceof ValidationError ? 'correct --proxy, --ca or --cert' : 'install undici (npm install undici, the major the message names)')];
  }
  try {
    const service: ServiceTarget = { url: options.baseUrl, target: targetOf(options.baseUrl.hostname, options.baseUrl.port, options.baseUrl.protocol) };
    const keyCheck = keyProblem(options);
    const client = new Client({ apiKey: keyCheck ? NO_KEY : options.apiKey, baseUrl: options.baseUrl.href, fetch: network.fetch, timeout: options.timeoutMs, maxRetries: 0, retryBudget: false, logLevel: 'off' });
    const { result: answer, connections } = await watchConnections(() => read(client));
    const noProxy = io.env.no_proxy || io.env.NO_PROXY;
    const { checks, reached } = networkChecks(service, network.proxies, noProxy, { connections, failure: answer.failure, timeoutMs: options.timeoutMs }, network.trust);
    checks.push(keyCheck ?? keyLine(answer, reached, options), clockLine(answer));
    return checks;
  } finally {
    await network.close();
  }
}

/** The key's own problem (missing, malformed: the Client's rule), or undefined when it is worth sending. */
function keyProblem(options: DoctorOptions): Check | undefined {
  if (options.apiKey === undefined) return fail('key', 'no API key: SVC_API_KEY is not set', 'export SVC_API_KEY=vdr_… (the key the developer portal issued), or pass --api-key');
  try {
    new Client({ apiKey: options.apiKey, baseUrl: options.baseUrl.href });
    return undefined;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const issue = error.issues.find((candidate) => candidate.path[0] === 'apiKey');
    return fail('key', `${options.keySource} is not a key: ${issue?.message ?? error.message}`, `set ${options.keySource} to the whole key (vdr_…)`);
  }
}

async function read(client: Client): Promise<Answer> {
  const sentAt = Date.now();
  try {
    const { response } = await client.request({ method: 'GET', path: READ_PATH }).withResponse();
    return { status: response.status, statusText: response.statusText, date: response.headers.get('date'), sentAt, answeredAt: Date.now() };
  } catch (error) {
    const answeredAt = Date.now();
    if (error instanceof APIError) return { status: error.status, date: error.headers.get('date'), sentAt, answeredAt };
    return { failure: error, sentAt, answeredAt };
  }
}

function keyLine(answer: Answer, reached: boolean, options: DoctorOptions): Check {
  const call = `GET /api/v1${READ_PATH}`;
  if (answer.status === undefined) {
    return reached ? fail('key', `no answer: ${describeFetchFailure(answer.failure, options.timeoutMs)}`, 'raise --timeout, or try again: the service may be down') : skip('key', 'the service was not reached');
  }
  const status = `${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}`;
  // A fetch status is 200 or more (a 1xx is interim, never the answer).
  if (answer.status < 300) return pass('key', `accepted (${call} answered ${status})`);
  if (answer.status === 401) return fail('key', `refused: ${call} answered 401`, `set ${options.keySource} to a key this service issued (a key of another deployment is refused)`);
  if (answer.status === 403) return fail('key', `not allowed to read: ${call} answered 403`, 'ask for a key with read access');
  if (answer.status === 404) return fail('key', `${call} answered 404`, 'check SVC_BASE_URL: it is the service\'s base URL, without /api/v1 (the SDK appends it)');
  return fail('key', `${call} answered ${status}`, answer.status >= 500 ? 'the service is failing: try again later' : 'see the status');
}

/** This clock against the service's `Date` (whole seconds: its middle second is taken, ± the round trip). */
function clockLine(answer: Answer): Check {
  const served = answer.date ? Date.parse(answer.date) : Number.NaN;
  if (answer.status === undefined) return skip('clock', 'no answer, so no Date header to compare');
  if (Number.isNaN(served)) return skip('clock', 'the service sent no Date header: the clock is not checked');
  // How far the service's clock is ahead of this one; the Date is truncated to the second, so its middle is the estimate.
  const skew = served + 500 - (answer.sentAt + answer.answeredAt) / 2;
  const margin = 500 + (answer.answeredAt - answer.sentAt) / 2;
  const window = `receivers allow ${duration(FUTURE_SKEW_MS)} of skew in svc-sdk/webhooks' replay window of ${duration(DEFAULT_TOLERANCE_MS)} (tolerance)`;
  if (Math.abs(skew) <= margin) return pass('clock', `in step with the service's Date (within ${duration(margin)}); ${window}`);
  const off = `this machine's clock is ${duration(skew)} ${skew > 0 ? 'behind' : 'ahead of'} the service's`;
  if (Math.abs(skew) <= FUTURE_SKEW_MS) return pass('clock', `${off}; ${window}`);
  const effect = skew > 0
    ? `receivers here see each delivery ${duration(skew)} in the future and refuse it (future_timestamp: they allow ${duration(FUTURE_SKEW_MS)})`
    : `receivers here see each delivery ${duration(skew)} older: the ${duration(DEFAULT_TOLERANCE_MS)} replay window (tolerance) shrinks by as much`;
  return fail('clock', `${off}: ${effect}`, "synchronise this machine's clock (timedatectl set-ntp true, or chrony / ntpd)");
}

/** An unsigned POST to the receiver: a 4xx is a receiver refusing it, as it should; no answer is unreachable from here. */
async function webhookCheck(options: DoctorOptions, io: CliIO): Promise<Check> {
  const url = options.webhookUrl!;
  const shown = escapeUrl(url);
  let network: NetworkRoute | undefined;
  try {
    network = await resolveNetwork(options.network, io.env);
    const response = await network.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-sdk-doctor' },
      body: '{}',
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    await response.body?.cancel().catch(() => undefined);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    // By class, lowest first: a fetch status is 200 or more (a 1xx is interim, never the answer).
    if (response.status < 300) return fail('webhook', `${shown} accepted a POST with no valid signature (${status})`, 'verify every delivery (svc-sdk/webhooks: createWebhookHandler or verifyWebhook) and answer 4xx to a bad signature');
    if (response.status < 400) return fail('webhook', `${shown} redirects (${status})`, 'register the URL the redirect points to: deliveries do not follow redirects');
    if (response.status < 500) return pass('webhook', `${shown} is reachable from here: it refused a POST with no valid signature (${status}), as a receiver should`);
    return fail('webhook', `${shown} answered ${status} to an unsigned POST`, "check the receiver's logs: it should answer 4xx to a bad signature, not fail");
  } catch (error) {
    return fail('webhook', `${shown} is unreachable from here: ${describeFetchFailure(error, options.timeoutMs)}`, 'start the receiver, or correct --webhook-url (the service delivers to a public https:// URL)');
  } finally {
    await network?.close();
  }
}
