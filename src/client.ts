import { ValidationError } from './core/errors.js';
import { HttpCore, type HttpMethod, type RequestOptions } from './core/http.js';
import { Deals } from './resources/deals.js';
import { Documents } from './resources/documents.js';
import { Rooms } from './resources/rooms.js';
import { Search } from './resources/search.js';
import { Transactions } from './resources/transactions.js';
import { Webhooks } from './resources/webhooks.js';
import { isHttpUrl } from './shared/parse-url.js';

/** Settings of a `Client`; every one has a default. */
export interface ClientOptions {
  /** The API key (`vdr_…`). Default: `process.env.SVC_API_KEY`. */
  apiKey?: string | undefined;
  /** The service's base URL; the SDK appends `/api/v1/…`. Default: `process.env.SVC_BASE_URL`. */
  baseUrl?: string | undefined;
  /** Milliseconds to wait for each attempt's response. Default 60 000. */
  timeout?: number | undefined;
  /** Retries of an idempotent call after a network error, timeout, 408, 429 or 5xx. Default 2. */
  maxRetries?: number | undefined;
  /** A fetch to use instead of the global one (proxies, tests); it is called as `fetch(url, init)`. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Headers sent with every request. */
  headers?: Record<string, string> | undefined;
}

/** The escape hatch: any operation under `/api/v1`, with the client's auth, retries and errors. */
export interface RawRequest {
  method: HttpMethod;
  /** Path relative to `/api/v1`: `'/rooms'` calls `/api/v1/rooms`. Encode parameters yourself. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  body?: NonNullable<RequestInit['body']>;
  /** Marks a POST as safe to retry; other methods are retried already. */
  idempotent?: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;

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

  constructor(options: ClientOptions = {}) {
    const env = readEnv();
    const apiKey = options.apiKey ?? env?.SVC_API_KEY;
    const baseUrl = options.baseUrl ?? env?.SVC_BASE_URL;
    const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    checkOptions({ apiKey, baseUrl, timeout, maxRetries });

    this.baseUrl = baseUrl!.replace(/\/+$/, '');
    this.#core = new HttpCore({
      apiKey: apiKey!,
      baseUrl: this.baseUrl,
      timeout,
      maxRetries,
      fetch: options.fetch,
      headers: options.headers,
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
   * @example
   * ```ts
   * const rooms = await client.request({ method: 'GET', path: '/rooms' });
   * ```
   */
  async request<T = unknown>(request: RawRequest, options?: RequestOptions): Promise<T> {
    const { method, path, query, json, body, idempotent } = request;
    const normalized = path.startsWith('/') ? path : `/${path}`;
    return this.#core.request<T>(
      { method, path: normalized, query, json, body, idempotent, operation: `${method} ${normalized}` },
      options,
    );
  }
}

function readEnv(): Record<string, string | undefined> | undefined {
  // `process` is absent in browsers and workerd; read it without a reference error.
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
}

function checkOptions(options: { apiKey?: string; baseUrl?: string; timeout: number; maxRetries: number }): void {
  const issues: Array<{ path: string[]; message: string }> = [];
  const { apiKey, baseUrl, timeout, maxRetries } = options;
  if (!apiKey) issues.push({ path: ['apiKey'], message: 'apiKey is missing: pass it or set SVC_API_KEY' });
  else if (!apiKey.startsWith('vdr_')) {
    issues.push({ path: ['apiKey'], message: 'apiKey must start with "vdr_": copy the key the developer portal issued' });
  }
  if (!baseUrl) issues.push({ path: ['baseUrl'], message: 'baseUrl is missing: pass it or set SVC_BASE_URL' });
  else if (!isHttpUrl(baseUrl)) {
    issues.push({ path: ['baseUrl'], message: 'baseUrl must be an absolute http(s) URL, such as https://api.example.com' });
  }
  if (!Number.isInteger(timeout) || timeout <= 0) {
    issues.push({ path: ['timeout'], message: 'timeout must be a positive whole number of milliseconds' });
  }
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    issues.push({ path: ['maxRetries'], message: 'maxRetries must be a whole number, 0 or more' });
  }
  if (issues.length) throw new ValidationError('new Client()', issues);
}
