import { APIPromise } from './api-promise.js';
import { readAnswer } from './body.js';
import { morePages, type PageReader } from './more-pages.js';
import type { Exchange } from './types.js';

export type { ListOptions } from './types.js';

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

/**
 * The pages of a list, from its first answer: a plain array, or a `{ results, next }` page whose
 * `next` is followed until it is null (more-pages.ts: its rules, and why a list stops early).
 */
export async function* readPages<Item>(first: Exchange, reader: Omit<PageReader, 'readAnswer'>): AsyncGenerator<Item[]> {
  const answer = readAnswer(first, true);
  if (answer.next === null) {
    yield answer.data as Item[];
    return;
  }
  yield* morePages<Item>(first, answer, { ...reader, readAnswer });
}
