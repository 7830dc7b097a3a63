import type { HttpHandler } from 'msw/http';
import type { EventKind } from '../webhooks/event-kinds.js';
import { DeliveryScheduler, type DeliveryAttempt, type ScheduledDelivery } from './deliveries.js';
import { sampleEventData } from './events.js';
import { createFaults, withFaults, type EmulatorFaults, type ServedBy } from './faults.js';
import { createHandlers, dispatch, internalError, type HandlerContext } from './handlers.js';
import { listen, type ListeningEmulator } from './listen.js';
import { createControlHandlers } from './control.js';
import { createActionControlHandlers } from './control-actions.js';
import { createEmulatorActions, type EmulatorActions, type EmulatorActionsOptions } from './actions.js';
import { hostName, misdirectedHost, unknownMethod, withRequestId } from './production-rules.js';
import { msw } from './msw.js';
import { fail, withBodyAside } from './requests.js';
import { Store } from './store.js';
import { DEFAULT_MAX_JSON_BYTES, DEFAULT_MAX_RECORDS, DEFAULT_MAX_UPLOAD_BYTES, MAX_PAGE_SIZE } from '../shared/limits.js';

/** Settings of `createEmulator`. */
export interface EmulatorOptions {
  /** The one API key accepted; without it, any key starting with `vdr_` is. */
  apiKey?: string | undefined;
  /** Milliseconds before a delivery's first attempt. Default 2000 (the spec's "about 2 seconds"). */
  deliveryDelayMs?: number | undefined;
  /** Delays before attempts 2 to 6. Default the spec's: 1 min, 5 min, 30 min, 2 h, 8 h. */
  retryDelaysMs?: readonly number[] | undefined;
  /**
   * Called after every delivery attempt (the CLI logs them).
   *
   * @param attempt The delivery attempt just made: its webhook, event, attempt number, status and time.
   */
  onDelivery?: ((attempt: DeliveryAttempt) => void) | undefined;
  /**
   * Paginates every list (transactions, webhooks) with pages of this many items, even when the
   * request asks for no page, so a client's page-following runs end to end. Default: a list is one
   * page unless the request sends `page_size` (1 to 1000) or `page`.
   */
  pageSize?: number | undefined;
  /** The largest JSON body read, in bytes; a larger one is answered 413. Default 1 MiB. */
  maxJsonBytes?: number | undefined;
  /** The largest upload (the whole multipart body) read, in bytes; a larger one is answered 413. Default 100 MiB. */
  maxUploadBytes?: number | undefined;
  /**
   * Host names (without a port) that `listen()`'s server answers besides `127.0.0.1` and
   * `localhost`, e.g. `['host.docker.internal']` or a tunnel's name; read as URLs read them, so
   * `'Bücher.example'` matches the `Host: xn--bcher-kva.example` a client sends. Any other `Host` is
   * answered 421, so a web page whose DNS name was rebound to 127.0.0.1 cannot drive the emulator.
   */
  allowedHosts?: readonly string[] | undefined;
  /** Latency, a share of 503 answers, resets mid-body: see `EmulatorFaults`. Default: none. */
  faults?: EmulatorFaults | undefined;
  /**
   * The most records of each kind (deals, rooms, transactions, documents, webhooks, and the
   * attempts in `deliveries`) kept; creating one more drops the oldest of its kind (a dropped webhook
   * gets no more deliveries), with one `console.warn`. Bounds a long-running emulator's memory.
   * Default 10 000; `Infinity` keeps all.
   */
  maxRecords?: number | undefined;
  /** The emulated agents: expiry windows per kind, credits and their cost per proposal (see `emulator.actions`). */
  actions?: EmulatorActionsOptions | undefined;
}

/** Options of `waitForDelivery`. */
export interface WaitOptions {
  /** Milliseconds to wait before rejecting. Default 10 000. */
  timeout?: number | undefined;
}

/** An in-memory fake of the whole service: msw handlers, a fetch handler and an HTTP server. */
export interface Emulator {
  /** msw request handlers answering `/api/v1/...` on any origin, for `setupServer(...emulator.handlers)`. */
  readonly handlers: readonly HttpHandler[];
  /** Every delivery attempt made so far, oldest first (the newest `maxRecords` of them). */
  readonly deliveries: readonly DeliveryAttempt[];
  /** The faults injected, live: change a field and the next request sees it. */
  readonly faults: EmulatorFaults;
  /**
   * Answers one request like the service would (404 JSON for an unknown path). Called like the global
   * `fetch`, so it can be a client's: `new Client({ apiKey, baseUrl: 'https://svc.test', fetch: emulator.fetch })`
   * talks to the emulator with no server and no msw.
   *
   * @param input The request, or its URL.
   * @param init The method, headers and body, as for the global `fetch`.
   */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /**
   * Serves the emulator over HTTP on 127.0.0.1 (port 0: any free one); `url` is the base URL for a `Client`.
   *
   * @param port The port to listen on; 0 (the default) picks a free one.
   */
  listen(port?: number): Promise<ListeningEmulator>;
  /**
   * The service's side of agent actions: `propose` fires `action.approval_required`, `approve`,
   * `reject` and `expire` (and the kind's window, on the emulator's clock) fire the decision, each
   * proposal consumes credits (`credit.low`, `credit.exhausted`).
   */
  readonly actions: EmulatorActions;
  /**
   * Sends an event of any kind to every subscribed endpoint of every key; sample data when `data` is omitted.
   *
   * @param kind The event kind, such as `document.uploaded`.
   * @param data The event's `data`; the kind's sample data when omitted.
   */
  trigger(kind: EventKind, data?: Record<string, unknown>): Promise<ScheduledDelivery[]>;
  /**
   * Resolves with the first attempt (already made or to come) that `predicate` accepts.
   *
   * @param predicate Which attempt to wait for; any attempt when omitted.
   * @param options The `timeout` in ms before rejecting (default 10 000).
   */
  waitForDelivery(predicate?: (attempt: DeliveryAttempt) => boolean, options?: WaitOptions): Promise<DeliveryAttempt>;
  /**
   * Resolves once no attempt is being sent or due within `horizonMs` (default: the first-attempt delay).
   *
   * @param horizonMs How far ahead a due attempt still counts, in ms.
   */
  settled(horizonMs?: number): Promise<void>;
  /**
   * Moves the emulator's clock `ms` ahead and makes every delivery attempt due by then, retries
   * included, in order; resolves with the attempts made. Walks the whole retry schedule in
   * milliseconds, with no fake timers: `await emulator.advance(11 * 3_600_000)`.
   *
   * @param ms Milliseconds to move the clock ahead, 0 or more.
   */
  advance(ms: number): Promise<DeliveryAttempt[]>;
  /** Forgets every record and cancels every pending delivery. */
  reset(): void;
  /** `reset()`, and closes the HTTP servers `listen` opened. */
  close(): Promise<void>;
}

const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000] as const;

/**
 * Creates a stateful, in-memory emulator of the service.
 *
 * @param options The API key it accepts, delivery delays, faults to inject, and `onDelivery`.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createEmulator } from 'svc-sdk/testing';
 *
 * const emulator = createEmulator({ deliveryDelayMs: 0 });
 * const server = setupServer(...emulator.handlers);
 * server.listen({ onUnhandledFrame: 'error' });
 * ```
 */
export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const deliveryDelayMs = options.deliveryDelayMs ?? 2000;
  const retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  checkOptions(options.apiKey, deliveryDelayMs, retryDelaysMs);
  const limits = {
    json: checkSize(options.maxJsonBytes, 'maxJsonBytes') ?? DEFAULT_MAX_JSON_BYTES,
    upload: checkSize(options.maxUploadBytes, 'maxUploadBytes') ?? DEFAULT_MAX_UPLOAD_BYTES,
  };
  const { pageSize } = options;
  const allowedHosts = checkHosts(options.allowedHosts);
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= MAX_PAGE_SIZE)) {
    throw new TypeError(`[svc-sdk] createEmulator: pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }

  const maxRecords = checkMaxRecords(options.maxRecords) ?? DEFAULT_MAX_RECORDS;
  const store = new Store(maxRecords);
  const faults = createFaults(options.faults);
  const scheduler = new DeliveryScheduler({
    faults,
    deliveryDelayMs,
    retryDelaysMs,
    onAttempt: options.onDelivery,
    maxAttempts: maxRecords,
    onDropped: () => store.noteDropped('delivery attempts'),
  });
  const context: HandlerContext = { store, scheduler, apiKey: options.apiKey, limits, pageSize };
  // What the actions fire is heard by their control routes, which answer with the deliveries scheduled.
  const fired = new Set<(kind: EventKind, data: Record<string, unknown>, scheduled: readonly ScheduledDelivery[]) => void>();
  const fire = (kind: EventKind, data: Record<string, unknown>) => {
    const scheduled = dispatch(context, store.webhooks.values(), kind, data);
    for (const listener of fired) listener(kind, data, scheduled);
    return scheduled;
  };
  const actions = createEmulatorActions({ fire, now: () => scheduler.now(), later: (delayMs, run) => scheduler.later(delayMs, run) }, options.actions);
  const onFire = (listener: (kind: EventKind, data: Record<string, unknown>, scheduled: readonly ScheduledDelivery[]) => void) => (fired.add(listener), () => void fired.delete(listener));
  // Control routes first (svc-sdk trigger, control.ts): the service's routes end with a 404 for any other /api/v1 path.
  const handlers = [...createControlHandlers(context), ...createActionControlHandlers(context, { actions, onFire }), ...createHandlers(context)];
  const servers = new Set<ListeningEmulator>();
  // Faults wrap the whole answer, in process and over HTTP (where a reset reaches the socket); their
  // 503s are given outside the routes, so the request id is added after them, as on every answer.
  // Served over HTTP, a request is routed with its body set aside (withBodyAside); in process, as
  // it is: cancelling a body undici made (FormData, bytes) while it is read leaves an unhandled
  // rejection behind, which msw's tee kept from happening.
  const faulty = withFaults(faults, (request, servedBy) => answer(handlers, request, servedBy !== undefined));
  const served = async (request: Request, servedBy?: ServedBy) => withRequestId(await faulty(request, servedBy));

  const emulator: Emulator = {
    handlers,
    deliveries: scheduler.attempts,
    faults,
    actions,
    fetch(input, init) {
      return served(input instanceof Request && init === undefined ? input : new Request(input, init));
    },
    async listen(port = 0) {
      const server = await listen(onlyAllowedHosts(served, allowedHosts), port);
      const close = async () => {
        servers.delete(wrapped);
        await server.close();
      };
      const wrapped: ListeningEmulator = { url: server.url, port: server.port, close };
      servers.add(wrapped);
      return wrapped;
    },
    async trigger(kind, data) {
      return dispatch(context, store.webhooks.values(), kind, data ?? sampleEventData(kind));
    },
    waitForDelivery(predicate = () => true, { timeout = 10_000 } = {}) {
      return new Promise((resolve, reject) => {
        let seen = 0;
        const check = () => {
          // By position among every attempt made (not by index into the kept ones, which shift as the oldest go).
          const fresh = scheduler.since(seen);
          seen = scheduler.recorded - fresh.length;
          for (const attempt of fresh) {
            seen += 1;
            if (predicate(attempt)) {
              done();
              resolve(attempt);
              return;
            }
          }
        };
        const unsubscribe = scheduler.subscribe(check);
        const timer = setTimeout(() => {
          done();
          reject(new Error(`[svc-sdk] no matching delivery within ${timeout} ms (${scheduler.recorded} attempts so far)`));
        }, timeout);
        const done = () => {
          clearTimeout(timer);
          unsubscribe();
        };
        check();
      });
    },
    settled(horizonMs = deliveryDelayMs) {
      return new Promise((resolve) => {
        const check = () => {
          if (scheduler.isBusy(horizonMs)) return;
          unsubscribe();
          resolve();
        };
        const unsubscribe = scheduler.subscribe(check);
        check();
      });
    },
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) {
        return Promise.reject(new TypeError('[svc-sdk] emulator.advance(ms): ms must be 0 or more milliseconds'));
      }
      return scheduler.advance(ms);
    },
    reset() {
      scheduler.reset();
      store.clear();
      actions.reset();
    },
    async close() {
      emulator.reset();
      await Promise.all([...servers].map((server) => server.close()));
    },
  };
  return emulator;
}

/** What the emulator answers a request: its route's answer, 405 for an unknown method, else a JSON 404. */
async function answer(handlers: HttpHandler[], request: Request, bodyAside: boolean): Promise<Response> {
  try {
    const response = unknownMethod(request) ?? (await msw.getResponse(handlers, bodyAside ? withBodyAside(request) : request));
    return response ?? fail(404, `no route for ${request.method} ${new URL(request.url).pathname}: the service's paths start with /api/v1/ at the root of its origin`);
  } catch (error) {
    // Only a bug gets here (the routes answer their own errors): still JSON, never a hang.
    return internalError(error);
  }
}

/** `fetch` behind the Host check of the HTTP server (see `misdirectedHost`). */
function onlyAllowedHosts(fetch: (request: Request, servedBy: ServedBy) => Promise<Response>, allowedHosts: readonly string[]) {
  return async (request: Request, servedBy: ServedBy): Promise<Response> => {
    const refused = misdirectedHost(request, allowedHosts);
    return refused ? withRequestId(refused) : fetch(request, servedBy);
  };
}

/** The listed names as the Host header carries them (see `hostName`), or a TypeError naming the fix. */
function checkHosts(hosts: readonly string[] | undefined): string[] {
  const names = Array.isArray(hosts) ? hosts.map((host) => (typeof host === 'string' && /^[^\s:/?#@\\[\]]+$/.test(host) ? hostName(host) : undefined)) : [];
  if (hosts !== undefined && !(Array.isArray(hosts) && names.every((name) => name !== undefined))) {
    throw new TypeError("[svc-sdk] createEmulator: allowedHosts must be an array of host names without a port, e.g. ['host.docker.internal']");
  }
  return names as string[];
}

function checkOptions(apiKey: string | undefined, deliveryDelayMs: number, retryDelaysMs: readonly number[]): void {
  if (apiKey !== undefined && !/^vdr_\S+$/.test(apiKey)) {
    throw new TypeError('[svc-sdk] createEmulator: apiKey must start with "vdr_", like the keys the service issues, and go on after it');
  }
  if (!Number.isFinite(deliveryDelayMs) || deliveryDelayMs < 0) {
    throw new TypeError('[svc-sdk] createEmulator: deliveryDelayMs must be 0 or more milliseconds');
  }
  if (!Array.isArray(retryDelaysMs) || !retryDelaysMs.every((delay) => Number.isFinite(delay) && delay >= 0)) {
    throw new TypeError('[svc-sdk] createEmulator: retryDelaysMs must be an array of delays in milliseconds, 0 or more');
  }
}

function checkSize(value: number | undefined, name: string): number | undefined {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1)) {
    throw new TypeError(`[svc-sdk] createEmulator: ${name} must be a whole number of bytes, 1 or more`);
  }
  return value;
}

function checkMaxRecords(value: number | undefined): number | undefined {
  if (value !== undefined && !((Number.isSafeInteger(value) && value >= 1) || value === Number.POSITIVE_INFINITY)) {
    throw new TypeError('[svc-sdk] createEmulator: maxRecords must be a whole number of records, 1 or more (or Infinity to keep every record)');
  }
  return value;
}
