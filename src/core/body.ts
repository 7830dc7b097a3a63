import { safeParse } from 'zod/mini';
import { APIError, ResponseValidationError } from './errors.js';
import type { Exchange } from './types.js';

/** An answer with no body: shared, and never written to. */
export const NO_BYTES = new Uint8Array(0);

const utf8 = new TextDecoder();

/**
 * The text of a body: JSON is UTF-8 (RFC 8259), and any other text is decoded by the `charset` its
 * content type names (`iso-8859-1` is read as such, not as UTF-8), UTF-8 when it names none or one
 * this runtime does not know.
 */
export function textOf(bytes: Uint8Array, headers: Headers): string {
  const charset = isJson(headers) ? undefined : /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(headers.get('content-type') ?? '')?.[1];
  if (charset === undefined) return utf8.decode(bytes);
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return utf8.decode(bytes);
  }
}

/** A body as the service sent it: parsed JSON under a JSON content type, else its text, else `undefined`. */
export function bodyOf({ response, bytes, request }: Exchange): unknown {
  const { headers } = response;
  // The content type is read once: JSON's text is UTF-8 (textOf's rule), anything else is textOf's.
  if (!isJson(headers)) return textOf(bytes, headers) || undefined;
  const text = utf8.decode(bytes);
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ResponseValidationError(request.label, [{ path: [], message: 'the body is not valid JSON' }], text, request.operation.returnsSecret);
  }
}

/** An error answer's body: as `bodyOf`, but JSON that does not parse is kept as text. */
export function errorBodyOf(bytes: Uint8Array, headers: Headers): unknown {
  const text = textOf(bytes, headers);
  if (text === '' || !isJson(headers)) return text || undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `{ success: true, data }` → `data`; `{ success: false }` → APIError; anything else (`null` too) as it came. */
function unwrapEnvelope(body: unknown, { response, url, request }: Exchange): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const record = body as { success?: unknown; data?: unknown };
  if (typeof record.success !== 'boolean') return body;
  if (record.success) return 'data' in record ? record.data : body;
  throw APIError.generate({
    status: response.status,
    body,
    headers: response.headers,
    method: request.operation.method,
    url: response.url || url,
    secret: request.operation.returnsSecret,
  });
}

/** The data of a 2xx exchange that is not a list's: unwrapped and checked by the request's schema. */
export function dataOf<T>(exchange: Exchange): T {
  return readAnswer(exchange, false).data as T;
}

/** One answer read: its data (a page's items), and a page's `next` link (null on the last page and for single answers). */
export interface Answer {
  readonly data: unknown;
  readonly next: string | null;
}

/**
 * The one parser of 2xx answers, single and paged: the body, unwrapped from its envelope, checked by
 * the request's schema. A page (`page`) is a plain array or a `{ results, next }` object, its items
 * checked (issues under `results`). An operation that answers nothing must not count an HTML page
 * (a proxy's, a login page) as success.
 */
export function readAnswer(exchange: Exchange, page: boolean): Answer {
  const { request, response } = exchange;
  const { label, operation } = request;
  const body = bodyOf(exchange);
  if (operation.returnsNothing && typeof body === 'string') {
    const type = response.headers.get('content-type') ?? 'no content type';
    throw new ResponseValidationError(label, [{ path: [], message: `expected an empty or JSON answer, got ${type}` }], body);
  }
  const data = unwrapEnvelope(body, exchange);
  if (operation.returnsNothing) return { data: undefined, next: null };
  const paged = page && !Array.isArray(data) && typeof data === 'object' && data !== null && 'results' in data ? (data as { results: unknown; next?: unknown }) : undefined;
  const next = paged?.next ?? null;
  if (next !== null && typeof next !== 'string') throw new ResponseValidationError(label, [{ path: ['next'], message: 'next must be a URL or null' }], data);
  const items = paged ? paged.results : data;
  if (!request.schema) return { data: items, next };
  const result = safeParse(request.schema, items);
  if (!result.success) {
    const issues = paged ? result.error.issues.map((issue) => ({ ...issue, path: ['results', ...issue.path] })) : result.error.issues;
    throw new ResponseValidationError(label, issues, data, operation.returnsSecret);
  }
  return { data: result.data, next };
}

function isJson(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').includes('json');
}
