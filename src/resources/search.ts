import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/http.js';
import { operations } from '../operations.js';
import type { SearchParams, SearchResult } from '../schemas/search.js';
import { Resource } from './resource.js';

/** Question answering over a room's documents. */
export class Search extends Resource {
  /**
   * Asks a question over a room's uploaded documents; answers come with citations.
   *
   * @param roomId The id of the room whose documents are searched.
   * @param params The `query`: the question to answer from the room's documents.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * const result = await client.search.query(room.id, { query: 'How much did revenue grow?' });
   * console.log(result.answer, result.citations?.map((citation) => citation.filename));
   * ```
   */
  query(roomId: number, params: SearchParams, options?: RequestOptions): APIPromise<SearchResult> {
    return this.core.call(operations['search.query'], { path: [roomId], params }, options);
  }
}
