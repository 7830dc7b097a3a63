import { safeParse } from 'zod/mini';
import { APIPromise, type Exchange } from './api-promise.js';
import { bodyOf, unwrapEnvelope } from './body.js';
import { ResponseValidationError, SvcError } from './errors.js';
import type { RequestOptions } from './http.js';

/** Options of a list method: those of every call, and a bound on the pages read. */
export interface ListOptions extends RequestOptions {
  /** Pages read at most before the call fails (a service whose `next` never ends). Default 1 000. */
  maxPages?: number | undefined;
}

/** The default of `maxPages`: far above any real list, low enough to stop a loop. */
export const DEFAULT_MAX_PAGES = 1000;

/**
 * What a list method returns: await it for every item of every page, or iterate it with
 * `for await` to fetch pages one at a time (and stop early). `withResponse()` and `asResponse()`
 * give the first page's response.
 *
 * @example
 * ```ts
 * const all = await client.transactions.list({ deal_id: 7 });
 * for await (const tx of client.transactions.list({ deal_id: 7 })) {
 *   if (tx.linked_room_id) break; // no further page is fetched
 * }
 * ```
 */
export class PagePromise<Item> extends APIPromise<Item[]> implements AsyncIterable<Item> {
  readonly #first: Promise<Exchange>;
  readonly #pages: (first: Exchange) => AsyncGenerator<Item[]>;

  /** @internal Built by the client's core, never by users. */
  constructor(first: Promise<Exchange>, pages: (first: Exchange) => AsyncGenerator<Item[]>) {
    super(first, async (exchange) => {
      const items: Item[] = [];
      for await (const page of pages(exchange)) for (const item of page) items.push(item);
      return items;
    });
    this.#first = first;
    this.#pages = pages;
  }

  /** Yields the items one by one, fetching the next page only when the previous one is used up. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item> {
    for await (const page of this.#pages(await this.#first)) yield* page;
  }
}

/** How the pages of one list are fetched and bounded. */
interface PageReader {
  /** Fetches the page at an absolute URL, with the first page's options (auth, retries, timeout). */
  fetch: (url: string) => Promise<Exchange>;
  /** The service's origin: a `next` elsewhere is refused, so the API key never leaves it. */
  origin: string;
  maxPages: number;
}

/**
 * The pages of a list, from its first answer: a plain array, or a `{ results, next }` page whose
 * `next` (absolute or relative) is followed until it is null. Each page is checked by the list's schema.
 */
export async function* readPages<Item>(first: Exchange, reader: PageReader): AsyncGenerator<Item[]> {
  const { operation } = first.request;
  const seen = new Set<string>();
  let exchange = first;
  for (let count = 1; ; count++) {
    const { items, next } = readPage<Item>(exchange);
    yield items;
    if (next === null) return;
    const base = exchange.response.url || exchange.url;
    seen.add(base);
    const url = new URL(next, base);
    if (url.origin !== reader.origin) {
      throw new ResponseValidationError(
        operation,
        [{ path: ['next'], message: `the next page must be on ${reader.origin}, not ${url.origin}: the API key is never sent elsewhere` }],
        next,
      );
    }
    if (seen.has(url.href)) {
      throw new ResponseValidationError(operation, [{ path: ['next'], message: `the next page is one already read (${url.pathname}${url.search}): the list would never end` }], next);
    }
    if (count >= reader.maxPages) {
      throw new SvcError(`[svc-sdk] ${operation}: stopped after ${reader.maxPages} pages (maxPages) with more to come: raise maxPages, or iterate with for await and stop early`);
    }
    exchange = await reader.fetch(url.href);
  }
}

/** One page's items (checked) and its `next` link, or null on the last page. */
function readPage<Item>(exchange: Exchange): { items: Item[]; next: string | null } {
  const { request } = exchange;
  const data = unwrapEnvelope(bodyOf(exchange), exchange);
  const page = !Array.isArray(data) && typeof data === 'object' && data !== null && 'results' in data ? (data as { results: unknown; next?: unknown }) : undefined;
  const next = page?.next ?? null;
  if (next !== null && typeof next !== 'string') {
    throw new ResponseValidationError(request.operation, [{ path: ['next'], message: 'next must be a URL or null' }], data);
  }
  const items = page ? page.results : data;
  if (!request.schema) return { items: items as Item[], next };
  const result = safeParse(request.schema, items);
  if (!result.success) {
    const issues = page ? result.error.issues.map((issue) => ({ ...issue, path: ['results', ...issue.path] })) : result.error.issues;
    throw new ResponseValidationError(request.operation, issues, data);
  }
  return { items: result.data as Item[], next };
}
