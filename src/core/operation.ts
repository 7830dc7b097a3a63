/**
 * How an operation is written down (`defineOperation`, used by the table in src/operations.ts), and
 * the URL template of a call that has no entry (`client.request`). The core reads entries; it never
 * guesses an operation's template from the digits of a path.
 */
import type { ZodMiniType } from 'zod/mini';
import type { HttpMethod, Operation, PathParameter } from './types.js';

/** An operation as the table writes it: flags that are false by default may be left out. */
export interface OperationInit<Result> {
  name: string;
  method: HttpMethod;
  /** Relative to `/api/v1`, parameters named in braces: `/rooms/{room_id}/search`. */
  path: string;
  /** One schema per named parameter of `path`, under its name. */
  pathParameters?: Record<string, ZodMiniType<string | number>>;
  params?: ZodMiniType;
  response?: ZodMiniType<Result>;
  mayRetry: boolean;
  changesState: boolean;
  returnsNothing?: boolean;
  list?: boolean;
  upload?: boolean;
  returnsSecret?: boolean;
  dryRun?: Operation['dryRun'];
}

const NAMED_PARAMETER = /\{(\w+)\}/g;

/**
 * A frozen operation entry. Throws (when the table is loaded, so a typo fails every test) when the
 * template and the parameter schemas do not name the same parameters.
 */
export function defineOperation<Result = unknown>(init: OperationInit<Result>): Operation<Result> {
  const names = [...init.path.matchAll(NAMED_PARAMETER)].map((match) => match[1]!);
  const schemas = init.pathParameters ?? {};
  if (names.join() !== Object.keys(schemas).join()) {
    throw new Error(`[svc-sdk] operation ${init.name}: its path ${init.path} names {${names.join('}, {')}}, its parameters are ${Object.keys(schemas).join(', ') || 'none'}`);
  }
  const pathParameters: PathParameter[] = names.map((name) => Object.freeze({ name, schema: schemas[name]! }));
  return Object.freeze({
    name: init.name,
    method: init.method,
    path: init.path,
    pathParameters: Object.freeze(pathParameters),
    pathParts: Object.freeze(init.path.split(/\{\w+\}/)),
    params: init.params,
    response: init.response,
    mayRetry: init.mayRetry,
    changesState: init.changesState,
    returnsNothing: init.returnsNothing === true,
    list: init.list === true,
    upload: init.upload === true,
    returnsSecret: init.returnsSecret === true,
    dryRun: init.dryRun,
  });
}

// A segment that is an id: digits (every id of the service is a positive integer), or a UUID (a share link's).
const ID_SEGMENT = /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * The URL template of a path `client.request` was given, which no entry describes: without its
 * query and fragment, each id segment (digits or a UUID) as `{id}`, so every call of one endpoint
 * has one template (a span name, a metric series) however many ids it is called with.
 */
export function rawTemplate(path: string): string {
  const end = path.search(/[?#]/);
  const segments = (end === -1 ? path : path.slice(0, end)).split('/');
  return segments.map((segment) => (ID_SEGMENT.test(segment) ? '{id}' : segment)).join('/');
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
    changesState: method !== 'GET',
    returnsNothing: false,
    list: false,
    upload: false,
    returnsSecret: false,
    dryRun: undefined,
  };
}
