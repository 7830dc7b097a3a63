/**
 * How an operation is written down (`defineOperation`, used by the table in src/operations.ts). The
 * core reads entries; it never guesses an operation's template from the digits of a path (but for
 * `client.request`, which has no entry: raw-request.ts).
 */
import type { ZodMiniType } from 'zod/mini';
import type { HttpMethod, Operation, OperationEffect, PathParameter } from './types.js';

/** An operation as the table writes it: flags that are false by default may be left out. */
export interface OperationInit<Result, Params extends ZodMiniType | undefined> {
  name: string;
  method: HttpMethod;
  /** Relative to `/api/v1`, parameters named in braces: `/rooms/{room_id}/search`. */
  path: string;
  /** One schema per named parameter of `path`, under its name. */
  pathParameters?: Record<string, ZodMiniType<string | number>>;
  params?: Params;
  response?: ZodMiniType<Result>;
  mayRetry: boolean;
  /** What a call does (`changesState` is derived from it). */
  effect: OperationEffect;
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
export function defineOperation<Result = unknown, Params extends ZodMiniType | undefined = undefined>(init: OperationInit<Result, Params>): Operation<Result, Params> {
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
    // An entry without params has Params = undefined: the absent field is that undefined.
    params: init.params as Params,
    response: init.response,
    mayRetry: init.mayRetry,
    effect: init.effect,
    changesState: init.effect !== 'read',
    returnsNothing: init.returnsNothing === true,
    list: init.list === true,
    upload: init.upload === true,
    returnsSecret: init.returnsSecret === true,
    dryRun: init.dryRun,
  });
}
