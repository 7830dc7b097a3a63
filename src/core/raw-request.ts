/**
 * The escape hatch's request (`client.request`): its path checked as the URL parser resolves it, its
 * entry (operation `request`, the path's URL template), its JSON body.
 */
import { ValidationError } from './errors.js';
import { climbsOut } from './path.js';
import { checkSettings } from './validate.js';
import type { CoreRequest, HttpMethod, Operation, RawCall, RequestOptions } from './types.js';

/** Control characters: a URL parser strips TAB, CR and LF silently (and would then resolve what they hid). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

/** `/rooms`, `/rooms/12/documents/`: a path the URL parser keeps exactly as written. */
const PLAIN_PATH = /^(?:\/[\w~-]+)+\/?$/;

/**
 * The request of one `client.request` call under `prefix` (the client's `…/api/v1`, whose path is
 * `root`), or a ValidationError, and nothing is sent: bad options (`checkSettings`, the core's, given
 * the `settings` the caller passed), a path the parser would change or resolve outside `/api/v1/`, or a
 * `json` that JSON cannot carry.
 */
export function rawRequest(
  raw: RawCall,
  settings: RequestOptions | undefined,
  prefix: string,
  root: string,
): CoreRequest {
  const label = `${raw.method} ${raw.path}`;
  if (settings) checkSettings(label, settings);
  const problem = pathProblem(prefix, root, raw.path);
  if (problem) throw new ValidationError(label, [{ path: ['path'], message: problem }]);
  const operation = rawOperation(raw.method, raw.path, raw.idempotent === true);
  const hasJson = raw.json !== undefined;
  return {
    operation,
    label,
    url: prefix + raw.path,
    query: raw.query,
    body: hasJson ? { content: jsonText(label, raw.json) } : raw.body === undefined ? undefined : { content: raw.body },
    json: hasJson,
    schema: undefined,
    mayRetry: operation.mayRetry,
  };
}

/**
 * What is wrong with a path relative to `/api/v1`; `undefined` when nothing is. Judged on the URL
 * the parser resolves (the prefix is an absolute URL, so any path text parses), after refusing
 * the control characters the parser would strip; a `..` segment that stays inside is refused too,
 * as it makes the call another endpoint than the one written.
 */
function pathProblem(prefix: string, root: string, path: string): string | undefined {
  // Segments of letters, digits, `_`, `-` and `~` only: the parser appends such a path to the root as written
  // (nothing to encode, no dot segment, no control character), so no URL is parsed for the common call.
  if (PLAIN_PATH.test(path)) return undefined;
  if (CONTROL_CHARACTER.test(path)) return 'path must not contain control characters (tab, line break): remove them';
  const { pathname } = new URL(prefix + path);
  if (!`${pathname}/`.startsWith(`${root}/`)) return `path must stay under /api/v1, but it resolves to ${pathname}: remove its '..' segments`;
  if (climbsOut(path)) return "path must not have '..' segments: name the endpoint itself";
  return undefined;
}

/** The JSON text of `client.request`'s `json`: a value JSON cannot carry (a BigInt, a cycle) is a ValidationError, and nothing is sent. */
function jsonText(label: string, json: unknown): string {
  try {
    return JSON.stringify(json);
  } catch (error) {
    throw new ValidationError(label, [{ path: ['json'], message: `json cannot be sent as JSON (${error instanceof Error ? error.message : String(error)}): pass plain data` }]);
  }
}

/**
 * The URL template of a path `client.request` was given, which no entry describes: without its
 * query and fragment, each id segment (digits or a UUID) as `{id}`, so every call of one endpoint
 * has one template (a span name, a metric series) however many ids it is called with.
 */
export function rawTemplate(path: string): string {
  // A segment that is an id: digits (every id of the service is a positive integer), or a UUID (a share link's).
  const idSegment = /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
  const end = path.search(/[?#]/);
  const segments = (end === -1 ? path : path.slice(0, end)).split('/');
  return segments.map((segment) => (idSegment.test(segment) ? '{id}' : segment)).join('/');
}

/**
 * The entry of one `client.request` call: operation `request`, its URL template the path's
 * (`rawTemplate`), retried unless it is a POST not marked idempotent.
 */
export function rawOperation(method: HttpMethod, path: string, idempotent: boolean): Operation {
  return {
    name: 'request',
    method,
    path: rawTemplate(path),
    pathParameters: [],
    pathParts: [path],
    params: undefined,
    response: undefined,
    mayRetry: method !== 'POST' || idempotent,
    effect: method === 'GET' ? 'read' : 'write',
    changesState: method !== 'GET',
    returnsNothing: false,
    list: false,
    upload: false,
    returnsSecret: false,
    dryRun: undefined,
  };
}
