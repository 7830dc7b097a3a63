import { ValidationError, type Issue } from './core/errors.js';
import type { APIPromise } from './core/api-promise.js';
import { HttpCore, type HttpMethod, type RequestOptions } from './core/http.js';
import type { Logger, LogLevel } from './core/logger.js';
import { readHookSets } from './core/hook-sets.js';
import type { ClientHooksOption } from './core/types.js';
import { Deals } from './resources/deals.js';
import { Documents } from './resources/documents.js';
import { Rooms } from './resources/rooms.js';
import { Search } from './resources/search.js';
import { Transactions } from './resources/transactions.js';
import { Webhooks } from './resources/webhooks.js';
import { settingsIssues } from './core/validate.js';
import { budgetOf, retryBudgetIssues, type RetryBudget, type RetryBudgetOptions } from './core/retry-budget.js';
import { Governor, governorIssues, type SharedLimiter } from './core/governor.js';
import { transportOf, type TransportOptions } from './core/transport.js';
import { isHttpUrl, parseUrl } from './shared/parse-url.js';
import { runtime } from './shared/runtime.js';
import { DEFAULT_CLIENT_TIMEOUT_MS, DEFAULT_MAX_RETRIES } from './shared/limits.js';

/** Settings of a `Client`; every one has a default. */
export interface ClientOptions extends TransportOptions {
  /** The API key (`vdr_…`). Default: `process.env.SVC_API_KEY`. */
  apiKey?: string | undefined;
  /** The service's base URL; the SDK appends `/api/v1/…`. Default: `process.env.SVC_BASE_URL`. */
  baseUrl?: string | undefined;
  /** Milliseconds each attempt may take, reading the response body included. Default 60 000. */
  timeout?: number | undefined;
  /** Retries of an idempotent call after a network error, timeout, 408, 429 or 5xx. Default 2. */
  maxRetries?: number | undefined;
  /** A fetch to use instead of the global one (proxies, tests); it is called as `fetch(url, init)`. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /**
   * Lets the client run in a browser page. Off by default: a page's users can read every request it
   * makes, API key included, so call the service from your server unless the page is trusted (an
   * internal tool) and the key is scoped for it.
   */
  dangerouslyAllowBrowser?: boolean | undefined;
  /**
   * What the client logs: `'debug'` every attempt, `'info'` each retry and a retried call that gave up, `'warn'` only a
   * callback of yours that threw (a failed call is never printed at the default level: you get its error). Default
   * `process.env.SVC_LOG`, then `'warn'`.
   */
  logLevel?: LogLevel | undefined;
  /**
   * Where logs go: anything with console's debug/info/warn/error (pino, winston). Default `console`.
   * A logger that throws or returns a rejected promise never changes a call's outcome.
   */
  logger?: Logger | undefined;
  /**
   * Bytes an answer may have at most (each page of a list); a longer one fails while it is read,
   * with an SvcError naming this option, so memory stays bounded. A call can override it. Default 67 108 864 (64 MiB).
   */
  maxResponseBytes?: number | undefined;
  /** Hooks run on every call (one set, or several in order): see `ClientHooks`; `svc-sdk/otel`'s `clientTelemetry()` makes a set. */
  hooks?: ClientHooksOption | undefined;
  /**
   * The retry budget every call of this client draws on (AWS SDKs' standard mode): a bucket of 500 tokens,
   * a retry takes 5 (10 after a timeout or a failed connection), a success gives 1 back (a retried one its
   * last retry's cost); when it is empty calls fail at once, saying so. Pass a `RetryBudget` to share one
   * between clients, its options (`{ capacity, costs, refill }`), or `false` for none. Default: a budget of its own.
   */
  retryBudget?: RetryBudget | RetryBudgetOptions | false | undefined;
  /**
   * Requests in flight at most (each attempt of a call, upload or page holds one while it is sent and
   * read); the others wait their turn, and the wait counts against their `timeout` (a timeout there
   * says "while queued", and nothing was sent). Default: no limit.
   */
  maxConcurrency?: number | undefined;
  /**
   * Requests sent a second at most, evenly spaced (10: one every 100 ms), every attempt of this
   * client's calls counted; a wait counts against the call's `timeout`. A throttled answer's
   * Retry-After holds back every send, whether or not this is set (when any limit is). Default: no limit.
   */
  maxRequestsPerSecond?: number | undefined;
  /** A limit shared by processes (a fleet): `svc-sdk/limits`' `redisRateLimiter()`, or anything with `acquire(signal)`. */
  limiter?: SharedLimiter | undefined;
}

/** The escape hatch: any operation under `/api/v1`, with the client's auth, retries and errors. */
export interface RawRequest {
  method: HttpMethod;
  /** Path relative to `/api/v1`: `'/rooms'` calls `/api/v1/rooms`. Encode parameters yourself. */
  path: string;
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | boolean | undefined> | undefined;
  /** A JSON body, sent with `Content-Type: application/json`. */
  json?: unknown;
  /** A raw body, sent as it is (set its `content-type` in the call's `headers`). */
  body?: NonNullable<RequestInit['body']> | undefined;
  /** Marks a POST as safe to retry; other methods are retried already. */
  idempotent?: boolean | undefined;
}

/**
 * The client of the deal, data-room and webhook service.
 *
 * @example
 * ```ts
 * import { Client } from 'svc-sdk';
 *
 * const client = new Client(); // SVC_API_KEY and SVC_BASE_URL from the environment
 * const deal = await client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
 * const room = await client.rooms.create({ name: 'Acme VDR', room_type: 'company_investment' });
 * const tx = await client.transactions.create({ name: 'Acme Series A', deal_id: deal.id });
 * await client.transactions.update(tx.id, { linked_room_id: room.id });
 * ```
 */
/** Each client's API key, kept outside the instance so it never shows on it (inspect, JSON, a debugger). */
const KEYS = new WeakMap<object, string>();

/**
 * `identify(key)` of the API key `client` sends, for a tool that must tell keys apart without
 * keeping one (svc-sdk's MCP server hashes it to bind a commit token). Internal: not in the public entry.
 */
export function identifyApiKey<T>(client: Client, identify: (apiKey: string) => T): T {
  const apiKey = KEYS.get(client);
  if (apiKey === undefined) throw new TypeError('[svc-sdk] identifyApiKey: pass a Client made by new Client()');
  return identify(apiKey);
}

export class Client {
  /** Deals of the CRM. */
  readonly deals: Deals;
  /** Data rooms. */
  readonly rooms: Rooms;
  /** Transactions, joining deals to rooms. */
  readonly transactions: Transactions;
  /** Documents in rooms. */
  readonly documents: Documents;
  /** Question answering over a room's documents. */
  readonly search: Search;
  /** Webhook registrations. */
  readonly webhooks: Webhooks;
  /** The base URL requests go to (without `/api/v1`). */
  readonly baseUrl: string;

  // Private, so the key never shows in `util.inspect`, `JSON.stringify` or a debugger's summary.
  readonly #core: HttpCore;

  /**
   * Checks the options (throws `ValidationError` naming the field); `apiKey` and `baseUrl` default to `SVC_API_KEY` and `SVC_BASE_URL`.
   *
   * @param options The API key, base URL, timeout, retries, hooks and logging; every field optional.
   */
  constructor(options: ClientOptions = {}) {
    const env = readEnv();
    const apiKey = options.apiKey ?? env?.SVC_API_KEY;
    const baseUrl = options.baseUrl ?? env?.SVC_BASE_URL;
    const timeout = options.timeout ?? DEFAULT_CLIENT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const { maxResponseBytes } = options;
    // The hook sets are read once, here, into plain records: what the client runs is this copy.
    const { hookSets, issues: hookIssues } = readHookSets(options.hooks);
    checkOptions({ apiKey, baseUrl, timeout, maxRetries, maxResponseBytes, headers: options.headers, hookIssues: [...hookIssues, ...retryBudgetIssues(options.retryBudget, ['retryBudget']), ...governorIssues(options)], allowBrowser: options.dangerouslyAllowBrowser === true });

    this.baseUrl = stripTrailingSlashes(baseUrl!);
    KEYS.set(this, apiKey!);
    this.#core = new HttpCore({
      apiKey: apiKey!,
      baseUrl: this.baseUrl,
      timeout,
      maxRetries,
      fetch: options.fetch,
      headers: options.headers,
      logLevel: options.logLevel,
      logger: options.logger,
      logEnv: env?.SVC_LOG,
      maxResponseBytes,
      hooks: hookSets,
      retryBudget: budgetOf(options.retryBudget),
      // A fetch of the caller's is the caller's route: the environment's proxies are for the SDK's own.
      transport: options.fetch ? undefined : transportOf(options, env),
      // Only a client that sets a limit has a governor: the others' attempts never wait, nor test for one.
      governor:
        options.maxConcurrency !== undefined || options.maxRequestsPerSecond !== undefined || options.limiter !== undefined
          ? new Governor(options)
          : undefined,
    });
    this.rooms = new Rooms(this.#core);
    this.transactions = new Transactions(this.#core);
    this.deals = new Deals(this.#core, this.transactions);
    this.documents = new Documents(this.#core);
    this.search = new Search(this.#core);
    this.webhooks = new Webhooks(this.#core);
  }

  /**
   * Calls any operation under `/api/v1`; returns the envelope's `data`, or the body as it came.
   *
   * @param request The method, the path under `/api/v1`, and the query and body to send.
   * @param options Per-call overrides: timeout, retries, headers, signal.
   *
   * @example
   * ```ts
   * const rooms = await client.request({ method: 'GET', path: '/rooms' });
   * ```
   */
  request<T = unknown>(request: RawRequest, options?: RequestOptions): APIPromise<T> {
    const { method, path, query, json, body, idempotent } = request;
    return this.#core.request<T>({ method, path: path.startsWith('/') ? path : `/${path}`, query, json, body, idempotent }, options);
  }
}

function readEnv(): Record<string, string | undefined> | undefined {
  // `process` is absent in browsers and workerd; read it without a reference error.
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
}

/** `https://api.example.com//` → `https://api.example.com`, in linear time (a `/\/+$/` regex is quadratic on many slashes). */
function stripTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f) end--;
  return url.slice(0, end);
}

interface CheckedOptions {
  apiKey: string | undefined;
  baseUrl: string | undefined;
  timeout: number;
  maxRetries: number;
  maxResponseBytes: unknown;
  headers: unknown;
  hookIssues: Issue[];
  allowBrowser: boolean;
}

function checkOptions(options: CheckedOptions): void {
  const { apiKey, baseUrl, timeout, maxRetries, maxResponseBytes, headers, hookIssues } = options;
  const issues: Issue[] = [];
  // The key itself is never quoted in a message: messages end up in logs.
  if (!apiKey) issues.push({ path: ['apiKey'], message: 'apiKey is missing: pass it or set SVC_API_KEY' });
  // A key pasted with a space or a line break around it (an env file, a copied line) is the commonest slip: named as such.
  else if (apiKey !== apiKey.trim() && apiKey.trim().startsWith('vdr_')) {
    issues.push({ path: ['apiKey'], message: 'apiKey has a space or line break before or after it: remove it (the key itself starts with "vdr_")' });
  } else if (!apiKey.startsWith('vdr_')) {
    issues.push({ path: ['apiKey'], message: 'apiKey must start with "vdr_": copy the key the developer portal issued' });
  } else if (apiKey.length === 4) {
    issues.push({ path: ['apiKey'], message: 'apiKey has nothing after "vdr_": copy the whole key the developer portal issued' });
    // eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
  } else if (/[\s\x00-\x1f\x7f]/.test(apiKey)) {
    // A header value cannot carry them: fetch would throw a TypeError after the call began, or send a broken header.
    issues.push({ path: ['apiKey'], message: 'apiKey contains a space, line break or control character: copy the key again without them' });
  }
  if (!baseUrl) issues.push({ path: ['baseUrl'], message: 'baseUrl is missing: pass it or set SVC_BASE_URL' });
  else if (!isHttpUrl(baseUrl)) {
    issues.push({ path: ['baseUrl'], message: 'baseUrl must be an absolute http(s) URL, such as https://api.example.com' });
  }
  // fetch refuses such a URL, quoting it whole (credentials and all) in its error: refused here, unquoted.
  else if (parseUrl(baseUrl)!.username || parseUrl(baseUrl)!.password) {
    issues.push({ path: ['baseUrl'], message: 'baseUrl must not carry user:password@: the client authenticates with apiKey' });
  }
  // timeout, maxRetries and headers are checked as a call's are: the same rules, the same words.
  issues.push(...settingsIssues({ timeout, maxRetries, maxResponseBytes, headers }), ...hookIssues);
  // A page with a DOM: where the API key would be visible to the page's users. Workers and servers have no `document`.
  if (!options.allowBrowser && runtime.browserPage) {
    issues.push({
      path: ['dangerouslyAllowBrowser'],
      message:
        'this looks like a browser page, where its users can read the API key: call the service from your server, ' +
        'or pass dangerouslyAllowBrowser: true if the page is trusted and the key scoped for it',
    });
  }
  if (issues.length) throw new ValidationError('new Client()', issues);
}
