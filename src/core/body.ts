import { safeParse } from 'zod/mini';
import type { Exchange } from './api-promise.js';
import { APIError, ResponseValidationError } from './errors.js';

/** A body as the service sent it: parsed JSON under a JSON content type, else its text, else `undefined`. */
export function bodyOf({ response, text, request }: Exchange): unknown {
  if (text === '' || !isJson(response.headers)) return text || undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ResponseValidationError(request.operation, [{ path: [], message: 'the body is not valid JSON' }], text);
  }
}

/** An error answer's body: as `bodyOf`, but JSON that does not parse is kept as text. */
export function errorBodyOf(text: string, headers: Headers): unknown {
  if (text === '' || !isJson(headers)) return text || undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `{ success: true, data }` → `data`; `{ success: false }` → APIError; anything else (`null` too) as it came. */
export function unwrapEnvelope(body: unknown, { response, url, request }: Exchange): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const record = body as { success?: unknown; data?: unknown };
  if (typeof record.success !== 'boolean') return body;
  if (record.success) return 'data' in record ? record.data : body;
  throw APIError.generate({ status: response.status, body, headers: response.headers, method: request.method, url: response.url || url });
}

/** The data of a 2xx exchange: unwrapped and checked by the request's schema. */
export function dataOf<T>(exchange: Exchange): T {
  const { request, response } = exchange;
  const body = bodyOf(exchange);
  if (request.returnsNothing && typeof body === 'string') {
    // An operation that answers nothing must not count an HTML page (a proxy's, a login page) as success.
    const type = response.headers.get('content-type') ?? 'no content type';
    throw new ResponseValidationError(request.operation, [{ path: [], message: `expected an empty or JSON answer, got ${type}` }], body);
  }
  const data = unwrapEnvelope(body, exchange);
  if (request.returnsNothing) return undefined as T;
  if (!request.schema) return data as T;
  const result = safeParse(request.schema, data);
  if (!result.success) throw new ResponseValidationError(request.operation, result.error.issues, data);
  return result.data as T;
}

function isJson(headers: Headers): boolean {
  return (headers.get('content-type') ?? '').includes('json');
}
