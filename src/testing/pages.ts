import { HttpProblem } from './requests.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../shared/limits.js';

/** One page of a list, as paginated APIs answer it; `next`/`previous` are null at the ends. */
export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** How a page links to its neighbours: a whole URL, or a path and query on the same origin. */
export type PageLinks = 'absolute' | 'relative';


/**
 * The whole list, or one page of it when the request asks for one (`page_size`, `page`) or the
 * emulator paginates every list (`pageSize`). Pages count from 1; a page past the last is a 404.
 */
export function paginate<T>(request: Request, items: readonly T[], pageSize: number | undefined, links: PageLinks): T[] | Page<T> {
  const url = new URL(request.url);
  const rawSize = url.searchParams.get('page_size');
  const rawPage = url.searchParams.get('page');
  if (rawSize === null && rawPage === null && pageSize === undefined) return [...items];

  const size = rawSize === null ? (pageSize ?? DEFAULT_PAGE_SIZE) : Number(rawSize);
  if (rawSize !== null && (!/^[0-9]+$/.test(rawSize) || size < 1 || size > MAX_PAGE_SIZE)) {
    throw new HttpProblem(422, `page_size must be a whole number from 1 to ${MAX_PAGE_SIZE}`, 'page_size');
  }
  const page = rawPage === null ? 1 : Number(rawPage);
  if (rawPage !== null && (!/^[0-9]+$/.test(rawPage) || page < 1)) {
    throw new HttpProblem(422, 'page must be a whole number from 1', 'page');
  }
  const last = Math.max(1, Math.ceil(items.length / size));
  if (page > last) throw new HttpProblem(404, `page ${page} does not exist: there ${last === 1 ? 'is 1 page' : `are ${last} pages`} of ${size}`, 'page');

  const link = (target: number): string => {
    const to = new URL(url);
    to.searchParams.set('page', String(target));
    to.searchParams.set('page_size', String(size));
    return links === 'absolute' ? to.href : `${to.pathname}${to.search}`;
  };
  return {
    count: items.length,
    next: page < last ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    results: items.slice((page - 1) * size, page * size),
  };
}
