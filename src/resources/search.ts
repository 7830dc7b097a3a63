import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/http.js';
import { path } from '../core/path.js';
import { idField } from '../schemas/common.js';
import { SearchParamsSchema, SearchResultSchema, type SearchParams, type SearchResult } from '../schemas/search.js';
import { Resource } from './resource.js';

const roomIdSchema = idField('roomId');

/** Question answering over a room's documents. */
export class Search extends Resource {
  /**
   * Asks a question over a room's uploaded documents; answers come with citations.
   *
   * @example
   * ```ts
   * const result = await client.search.query(room.id, { query: 'How much did revenue grow?' });
   * console.log(result.answer, result.citations?.map((citation) => citation.filename));
   * ```
   */
  query(roomId: number, params: SearchParams, options?: RequestOptions): APIPromise<SearchResult> {
    return this.core.call('search.query', options, (parse) => ({
      method: 'POST',
      path: path`/rooms/${parse(roomIdSchema, roomId)}/search`,
      json: parse(SearchParamsSchema, params),
      schema: SearchResultSchema,
    }));
  }
}
