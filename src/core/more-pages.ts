// The pages of a list after its first, when its first answer names a `next` one: loaded by
// pagination.ts then. Its imports are only the error classes the client's first chunk shares with
// every lazily loaded part; body.ts's parser is handed in (see PageReader.readAnswer).
import type { Answer } from './body.js';
import { ResponseValidationError, SvcError } from './errors.js';
import type { Exchange } from './types.js';

/** How the pages of one list are fetched and bounded. */
export interface PageReader {
  /** Fetches the page at an absolute URL, with the first page's options (auth, retries, timeout). */
  fetch: (url: string) => Promise<Exchange>;
  /** The client's `…/api/v1`: pages are read from its origin only, so the API key never leaves it. */
  prefix: string;
  maxPages: number;
  /** body.ts's parser, handed over rather than imported: a chunk that imported it would pull zod/mini out of the client's own. */
  readAnswer: (exchange: Exchange, page: true) => Answer;
}

/**
 * The pages of a list from its first answer (`first`, read as `answer`, whose `next` is not null):
 * each `next` (absolute or relative) is followed until it is null, and each page is checked by the
 * list's schema. The list ends with an error, at once, on a `next` already read (its fragment ignored), a
 * page whose body or item ids repeat an earlier page's, a `next` with credentials, or past `maxPages`.
 */
export async function* morePages<Item>(first: Exchange, answer: Answer, reader: PageReader): AsyncGenerator<Item[]> {
  const operation = first.request.label;
  const seenUrls = new Set<string>();
  const seenPages = new Map<string, number>();
  let exchange = first;
  for (let count = 1; ; count++) {
    const { data, next } = count === 1 ? answer : reader.readAnswer(exchange, true);
    const items = data as Item[];
    // Every page here is part of a list of several (the first one names a next), so each is checked.
    checkNotRepeated(exchange, items, count, seenPages);
    yield items;
    if (next === null) return;
    const base = withoutFragment(new URL(exchange.response.url || exchange.url));
    seenUrls.add(base.href);
    const url = nextPageUrl(next, base, reader.prefix, operation);
    if (seenUrls.has(url.href)) {
      throw new ResponseValidationError(operation, [{ path: ['next'], message: `the next page is one already read (${url.pathname}${url.search}): the list would never end` }], next);
    }
    if (count >= reader.maxPages) {
      throw new SvcError(`[svc-sdk] ${operation}: stopped after ${reader.maxPages} pages (maxPages) with more to come: raise maxPages, or iterate with for await and stop early`);
    }
    exchange = await reader.fetch(url.href);
  }
}

/**
 * Where a `next` link is read from: resolved against the page's URL, without its fragment (`#p2` is
 * the same page). One with credentials is refused, and not quoted. One on another origin whose path
 * is under `/api/v1/` (a proxy in front of the service rewrote `Host`, and the service named its own
 * address) is read from the client's own origin, so the key and the request never go elsewhere;
 * any other origin is refused.
 */
function nextPageUrl(next: string, base: URL, prefix: string, operation: string): URL {
  let url: URL;
  try {
    url = withoutFragment(new URL(next, base));
  } catch {
    throw new ResponseValidationError(operation, [{ path: ['next'], message: 'next must be a URL or null' }], next);
  }
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
    throw new ResponseValidationError(
      operation,
      [{ path: ['next'], message: 'the next page URL carries credentials (user:password@), which the SDK never sends: the list stops here' }],
      url.href,
    );
  }
  const own = new URL(prefix);
  if (url.origin === own.origin) return url;
  const rest = pathUnder(url.pathname, own.pathname) ?? pathUnder(url.pathname, '/api/v1');
  if (rest !== undefined) return new URL(`${own.origin}${own.pathname}${rest}${url.search}`);
  throw new ResponseValidationError(
    operation,
    [{ path: ['next'], message: `the next page must be on ${own.origin}, not ${url.origin}: the API key is never sent elsewhere` }],
    next,
  );
}

/** The part of `pathname` after `root` (`/rooms?…` of `/api/v1/rooms`), when it lies under `root/`. */
function pathUnder(pathname: string, root: string): string | undefined {
  return pathname.startsWith(`${root}/`) ? pathname.slice(root.length) : undefined;
}

function withoutFragment(url: URL): URL {
  url.hash = '';
  return url;
}

/**
 * Ends the list when a page repeats one already read: the same bytes (the same page under another
 * URL: `//`, `&_=2`), or the same item ids in the same order (the same page with a fresh timestamp).
 * Pages are remembered by a 53-bit hash and length, not kept.
 */
function checkNotRepeated(exchange: Exchange, items: unknown[], count: number, seen: Map<string, number>): void {
  const keys = [`bytes ${exchange.bytes.byteLength} ${hashBytes(exchange.bytes)}`];
  const ids = idsOf(items);
  if (ids !== undefined) keys.push(`ids ${ids}`);
  for (const key of keys) {
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      const what = key.startsWith('bytes') ? 'the same body' : 'the same item ids';
      throw new ResponseValidationError(
        exchange.request.label,
        [{ path: ['next'], message: `page ${count} repeats page ${earlier} (${what}): the service's next link goes round in circles, so the list stops here` }],
        undefined,
      );
    }
    seen.set(key, count);
  }
}

/** The ids of a page's items, in order, as one string; none for an empty page. Every list's schema makes its items objects with an `id`. */
function idsOf(items: unknown[]): string | undefined {
  return items.length === 0 ? undefined : JSON.stringify(items.map((item) => (item as { id: unknown }).id));
}

/** cyrb53: a fast 53-bit hash (not cryptographic: it tells pages apart, it guards no secret). */
function hashBytes(bytes: Uint8Array): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!;
    h1 = Math.imul(h1 ^ byte, 2654435761);
    h2 = Math.imul(h2 ^ byte, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
