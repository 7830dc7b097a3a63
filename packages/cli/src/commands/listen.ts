// `svc-sdk listen --forward-to <url>`: what `stripe listen --forward-to` is to Stripe. Registers a
// webhook on the service (or an emulator) pointing at a listener on this machine, verifies each
// delivery with that registration's secret, forwards it to the app re-signed with a secret of its
// own (printed at start, or SVC_WEBHOOK_SECRET), prints one line per delivery, and deletes the
// registration when stopped, so no endpoint is left behind that the service keeps retrying.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIConnectionError, APIError, Client } from 'svc-sdk';
import { randomHex, parseUrl, describeFetchFailure, readAtMost, refusalAnswer, type RefusalReason } from 'svc-sdk/internal';
import { WEBHOOK_EVENT_KINDS, type EventKind, signPayload, verifyWebhook, WebhookVerificationError } from 'svc-sdk/webhooks';
import { httpUrlFlag, integerFlag, parseCommandArgs, stringFlag } from '../args.js';
import { didYouMean } from '../suggest.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';
import { forwardTarget, type ForwardTarget } from '../forward-target.js';
import { readPreview, statusLine, unreachable } from '../http.js';
import { println, untilStopped } from '../signals.js';
import { escapeControl } from '../terminal-text.js';
import { summarizeEvent } from '../event-summary.js';

/** A delivery envelope is a few hundred bytes; anything near this is not one. */
const MAX_DELIVERY_BYTES = 1024 * 1024;
/** How long the app may take to answer a forwarded delivery (the service's own attempt timeout is similar). */
const FORWARD_TIMEOUT_MS = 30_000;
/** How many delivery ids are remembered to number their attempts. */
const REMEMBERED_DELIVERIES = 10_000;
/**
 * How long a sender may take to send a whole request, headers included. The service sends a delivery
 * of a few hundred bytes at once; a body that trickles in is not a delivery, and holding its socket
 * is how a slow sender exhausts a listener.
 */
const REQUEST_TIMEOUT_MS = 10_000;
/** How often node:http looks for requests past their timeout (its default, 30 s, would let one live 40 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

const HELP = `Usage: svc-sdk listen --forward-to <app-url> [--public-url <url>] [--events <kind,…>] [--port <n>]

Registers a webhook on the service (SVC_BASE_URL, with SVC_API_KEY, as the Client reads them;
an emulator works the same) that points at a listener on this machine, verifies every delivery,
forwards it to your app signed with a secret printed at start (or SVC_WEBHOOK_SECRET when set),
and prints one line per delivery: kind, delivery id, attempt, your app's answer (and for an
agent's action its action_id and status, for credits the balance). Your app's
status goes back to the service, so a failing app sees the service's retries. Ctrl+C deletes
the webhook and stops.

Options:
  --forward-to <url>   Your app's webhook route, such as http://127.0.0.1:3000/webhooks. A
                       user:password@ in it is sent as basic auth, and never printed.
  --public-url <url>   The https URL at which the service reaches this listener (a tunnel to
                       --port, such as ngrok or cloudflared). Without it: http://127.0.0.1:<port>/,
                       which only a service on this machine (the emulator) can reach.
  --events <kinds>     Comma-separated event kinds to subscribe to. Default: every kind.
  --port <n>           The listener's port on 127.0.0.1 (0: any free one). Default 0.
  -h, --help           Shows this help.

Exit codes: 0 when stopped and the webhook deleted, 1 when the webhook could not be registered or
deleted, 2 on a misuse of the command line.`;

/** `svc-sdk listen`. */
export const listenCommand: CliCommand = {
  name: 'listen',
  summary: 'Registers a webhook that forwards every verified delivery to your app (--forward-to), deleted on Ctrl+C.',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommandArgs('listen', args, {
      'forward-to': { type: 'string' },
      'public-url': { type: 'string' },
      events: { type: 'string' },
      port: { type: 'string' },
    });
    const forwardTo = forwardTarget(httpUrlFlag(stringFlag(parsed, 'forward-to'), '--forward-to', 'http://127.0.0.1:3000/webhooks'));
    const rawPublic = stringFlag(parsed, 'public-url');
    const publicUrl = rawPublic === undefined ? undefined : httpUrlFlag(rawPublic, '--public-url', 'https://abc.ngrok.app/');
    const eventTypes = parseEvents(stringFlag(parsed, 'events'));
    const port = integerFlag(stringFlag(parsed, 'port') ?? '0', '--port', 0, 65_535);
    if (!io.env['SVC_API_KEY']) throw new UsageError('SVC_API_KEY is not set: set it to your API key (vdr_…), or to the key svc-sdk emulator prints');
    if (!io.env['SVC_BASE_URL']) throw new UsageError('SVC_BASE_URL is not set: set it to the service\'s base URL, or to the URL svc-sdk emulator prints');
    // fetch refuses such a URL, and its error quotes it, password included, on the line that says so.
    const baseUrl = parseUrl(io.env['SVC_BASE_URL']);
    if (baseUrl !== undefined && (baseUrl.username || baseUrl.password)) {
      throw new UsageError('SVC_BASE_URL carries a user:password@, which requests to the service cannot: remove it (the API key goes in SVC_API_KEY)');
    }
    const client = new Client({ apiKey: io.env['SVC_API_KEY'], baseUrl: io.env['SVC_BASE_URL'], maxRetries: 1 });

    const forwardSecret = io.env['SVC_WEBHOOK_SECRET'] || `whsec_${randomHex(24)}`;
    // Listening for Ctrl+C before anything is registered: a signal while the registration is in
    // flight must not end the process with the webhook left behind (the service would retry every
    // event 6 times against it), so it is heard, the answer awaited, and the registration deleted.
    let registering = true;
    let stopping: NodeJS.Signals | undefined;
    const stopped = untilStopped(io.stop).then((signal) => {
      stopping = signal;
      if (registering) println(io.stdout, `${signal}: stopping once the registration in flight is answered, to delete it`);
      return signal;
    });
    const relay = new Relay(forwardTo, forwardSecret, io);
    const server = await listenOn(port, relay);
    const localPort = (server.address() as AddressInfo).port;
    const target = publicUrl?.href ?? `http://127.0.0.1:${localPort}/`;

    let registration: { id: number; secret: string };
    try {
      registration = await client.webhooks.create({ url: target, name: `svc-sdk listen → ${forwardTo.url.host}`, event_types: eventTypes });
    } catch (error) {
      await close(server);
      const hint =
        publicUrl === undefined && error instanceof APIError && error.status < 500
          ? `. The service cannot deliver to 127.0.0.1: expose port ${localPort} through a tunnel (fix it with --port) and pass its https URL as --public-url`
          : '';
      println(io.stderr, `[svc-sdk] could not register a webhook on ${client.baseUrl}: ${describeClientError(error)}${hint}`);
      return 1;
    }
    registering = false;
    relay.secret = registration.secret;
    const kinds = eventTypes === null ? 'every event kind' : eventTypes.join(', ');
    println(io.stdout, `svc-sdk listen: webhook ${registration.id} on ${client.baseUrl} delivers ${kinds} to ${target}`);
    if (stopping === undefined) {
      const auth = forwardTo.authorization === undefined ? '' : ' (with the user and password of --forward-to as basic auth)';
      println(io.stdout, `Forwarding to ${forwardTo.url.href}${auth}, signed with ${io.env['SVC_WEBHOOK_SECRET'] ? 'SVC_WEBHOOK_SECRET (from the environment)' : `SVC_WEBHOOK_SECRET=${forwardSecret}`}`);
      println(io.stdout, 'Press Ctrl+C to stop (the webhook is deleted).');
    }

    const signal = await stopped;
    await close(server);
    try {
      await client.webhooks.delete(registration.id);
    } catch (error) {
      println(io.stderr, `[svc-sdk] could not delete webhook ${registration.id}: ${describeClientError(error)}. Delete it with client.webhooks.delete(${registration.id})`);
      return 1;
    }
    println(io.stdout, `${signal}: deleted webhook ${registration.id}, stopped`);
    return 0;
  },
};

function parseEvents(raw: string | undefined): EventKind[] | null {
  if (raw === undefined) return null;
  const kinds = raw.split(',').map((kind) => kind.trim()).filter(Boolean);
  const unknown = kinds.filter((kind) => !(WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind));
  if (kinds.length === 0 || unknown.length > 0) {
    const hints = unknown.map((kind) => didYouMean(kind, WEBHOOK_EVENT_KINDS).trimEnd()).filter(Boolean);
    throw new UsageError(`--events takes event kinds separated by commas${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}${hints.length ? ` (${hints.join(' ')})` : ''}: use any of ${WEBHOOK_EVENT_KINDS.join(', ')}`);
  }
  return kinds as EventKind[];
}

/** A client error in one phrase, with the network cause when no answer came; the service's words escaped. */
function describeClientError(error: unknown): string {
  const message = (error as Error).message.replace(/^\[svc-sdk\] /, '');
  if (error instanceof APIConnectionError && error.cause !== undefined) return escapeControl(`${message} (${describeFetchFailure(error.cause)})`);
  return escapeControl(message);
}

/**
 * Answers a refused delivery as the receiver does, from its one table (src/webhooks/refusals.ts):
 * status, `{ error }` and headers. A delivery that arrives before the registration's secret is known
 * (`no_secret`) is answered 500, as the receiver answers it, so the service tries again. Returns the status.
 */
function refuse(response: ServerResponse, reason: RefusalReason | 'no_secret'): number {
  const [status, error, headers] = reason === 'no_secret' ? [500, reason, undefined] : refusalAnswer(reason);
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ error }));
  return status;
}

/** Verifies deliveries with the registration's secret and forwards them, re-signed, to the app. */
class Relay {
  /** The registration's secret; until it is known, every delivery is refused. */
  secret = '';
  readonly #attempts = new Map<string, number>();

  constructor(
    readonly forwardTo: ForwardTarget,
    readonly forwardSecret: string,
    readonly io: CliIO,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST') {
      refuse(response, 'method_not_allowed');
      return;
    }
    const body = await readAtMost(request, MAX_DELIVERY_BYTES);
    if (body === undefined) {
      refuse(response, 'body_too_large');
      return;
    }
    let event;
    try {
      event = await verifyWebhook(body, request.headers['x-svc-signature'], this.secret);
    } catch (error) {
      const reason = error instanceof WebhookVerificationError ? error.reason : 'invalid_payload';
      println(this.io.stdout, `refused a delivery: ${reason} → ${refuse(response, reason)}`);
      return;
    }
    const attempt = this.#count(event.delivery_id);
    // Verified, but still the network's words: a kind or an id may carry escape sequences.
    const prefix = `${escapeControl(event.event)} ${escapeControl(event.delivery_id)} attempt ${attempt}`;
    const { url, authorization } = this.forwardTo;
    let answer: Response;
    try {
      answer = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-svc-signature': await signPayload(body, this.forwardSecret),
          'user-agent': 'svc-sdk-listen',
          ...(authorization === undefined ? {} : { authorization }),
        },
        // Read from a socket: backed by an ArrayBuffer, never a shared one.
        body: body as Uint8Array<ArrayBuffer>,
        redirect: 'manual',
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
    } catch (error) {
      println(this.io.stdout, `${prefix} → failed: ${escapeControl(unreachable(url, error, FORWARD_TIMEOUT_MS))}`);
      response.writeHead(502).end();
      return;
    }
    const { text } = await readPreview(answer.body, 200);
    const excerpt = escapeControl(text.replace(/\s+/g, ' ').trim());
    // An action's sequence reads one line per event: its id and the status this event gives it (a balance for credit.*).
    const summary = summarizeEvent(event.event, event.data);
    println(this.io.stdout, `${prefix} → ${escapeControl(statusLine(answer))}${excerpt && !answer.ok ? `: ${excerpt}` : ''}${summary === undefined ? '' : ` · ${summary}`}`);
    // The app's status goes back to the service, so its failures meet the service's retry schedule.
    response.writeHead(answer.status).end();
  }

  #count(deliveryId: string): number {
    const attempt = (this.#attempts.get(deliveryId) ?? 0) + 1;
    this.#attempts.delete(deliveryId);
    this.#attempts.set(deliveryId, attempt);
    if (this.#attempts.size > REMEMBERED_DELIVERIES) this.#attempts.delete(this.#attempts.keys().next().value!);
    return attempt;
  }
}

/** The request body, or undefined past MAX_DELIVERY_BYTES (the rest is not read). */
function listenOn(port: number, relay: Relay): Promise<Server> {
  // The timeouts are options of the creation, not properties set after it: node:http arms its checks
  // with what it is created with, and a request timeout set later left a trickling sender held past 60 s.
  const timeouts = { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS };
  const server = createServer(timeouts, (request, response) => {
    relay.handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new UsageError(`port ${port} is in use: pick another with --port`) : error),
    );
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
