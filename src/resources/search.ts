import type { RequestOptions } from '../core/http.js';
import { path } from '../core/path.js';
import { parseParams } from '../core/validate.js';
import { idField } from '../schemas/common.js';
import { SearchParamsSchema, SearchResultSchema, type SearchParams, type SearchResult } from '../schemas/search.js';
import { Resource } from './resource.js';

const roomIdSchema = idField('roomId');

/** Question answering over a room's documents. */
export class Search extends Resource {
  /** Asks a question over a room's uploaded documents; answers come with citations. */
  async query(roomId: number, params: SearchParams, options?: RequestOptions): Promise<SearchResult> {
    parseParams('search.query', roomIdSchema, roomId);
    const json = parseParams('search.query', SearchParamsSchema, params);
    return this.core.request(
      { method: 'POST', path: path`/rooms/${roomId}/search`, json, schema: SearchResultSchema, operation: 'search.query' },
      options,
    );
  }
}
