// The `hooks` option read once, into plain records, when the client (or the call) is made.
//
// Whatever the caller passed (an array with holes, a set whose getter throws, a Proxy whose traps
// throw, a non-function) is read here, inside one guard, and becomes issues of a ValidationError
// naming the field: no raw TypeError or RangeError escapes from inside a later call. What is kept is
// a copy, so a set changed (or a getter that answers differently) afterwards changes nothing. The
// runner of the hooks (hooks.ts) is loaded only by a client that has some.
import type { Issue } from './errors.js';
import type { ClientHooks, HookName, HookSets } from './types.js';

export type { HookName, HookSets } from './types.js';

/** The hooks a set may have, in the order the docs list them. */
export const HOOK_NAMES: readonly HookName[] = ['beforeRequest', 'afterResponse', 'beforeRetry', 'onError'];

/** What reading a `hooks` option gave: its sets (none when empty) and what is wrong with it (a caller throws then). */
export interface ReadHookSets {
  readonly hookSets: HookSets | undefined;
  readonly issues: Issue[];
}

const NO_ISSUES: ReadHookSets = Object.freeze({ hookSets: undefined, issues: [] });

/** Reads a `hooks` option (one set or an array of sets) into plain records; never throws. */
export function readHookSets(option: unknown): ReadHookSets {
  if (option === undefined) return NO_ISSUES;
  const issues: Issue[] = [];
  const sets: ClientHooks[] = [];
  let at: PropertyKey[] = ['hooks'];
  try {
    const isList = Array.isArray(option);
    const list: readonly unknown[] = isList ? (option as unknown[]) : [option];
    const length = list.length;
    for (let index = 0; index < length; index++) {
      at = isList ? ['hooks', index] : ['hooks'];
      if (isList && !(index in list)) {
        issues.push({ path: at, message: `${at.join('.')} is a hole in the array: give a set of hooks (or leave the entry out)` });
        continue;
      }
      sets.push(readSet(list[index], at, issues));
    }
  } catch (error) {
    // A getter or a Proxy trap that threw: named, never quoted (it may hold anything); the error is the issue's cause.
    issues.push({ path: at, message: `${at.join('.')} could not be read (${error instanceof Error ? error.name : typeof error}): pass plain objects of functions` });
  }
  // With issues, the caller throws: the sets are never run.
  return { hookSets: sets.length ? listed(sets) : undefined, issues };
}

/** One set's hooks as a frozen plain record (an empty one for a set that is no object), its issues added to `issues`. */
function readSet(set: unknown, at: PropertyKey[], issues: Issue[]): ClientHooks {
  const copy: Record<string, unknown> = {};
  if (typeof set !== 'object' || set === null || Array.isArray(set)) {
    issues.push({ path: at, message: `${at.join('.')} must be an object of hooks (${HOOK_NAMES.join(', ')}), or an array of them` });
    return copy;
  }
  for (const name of Object.keys(set)) {
    if (!(HOOK_NAMES as readonly string[]).includes(name)) {
      issues.push({ path: [...at, name], message: `${[...at, name].join('.')} is not a hook: use ${HOOK_NAMES.join(', ')}` });
      continue;
    }
    // Read once: a getter answers here, and its answer is what runs.
    const hook = (set as Record<string, unknown>)[name];
    if (hook === undefined) continue;
    if (typeof hook !== 'function') issues.push({ path: [...at, name], message: `${[...at, name].join('.')} must be a function` });
    else copy[name] = hook;
  }
  return Object.freeze(copy) as ClientHooks;
}

function listed(sets: readonly ClientHooks[]): HookSets {
  // Which hooks any set has: the core skips the others' work altogether.
  const has = Object.fromEntries(HOOK_NAMES.map((name) => [name, sets.some((set) => set[name] !== undefined)])) as HookSets['has'];
  return Object.freeze({ sets: Object.freeze([...sets]), has: Object.freeze(has) });
}

/** The client's hook sets, then the call's. */
export function joinHookSets(client: HookSets | undefined, call: HookSets | undefined): HookSets | undefined {
  return call === undefined ? client : client === undefined ? call : listed([...client.sets, ...call.sets]);
}
