import { safeParse, type ZodMiniType } from 'zod/mini';
import { ValidationError, type Issue } from './errors.js';
import { MAX_TIMER_MS } from '../shared/limits.js';

/**
 * Checks a call's arguments before anything is sent, and returns them as parsed.
 * Throws a `ValidationError` naming each bad field; the request is never made.
 */
export function parseParams<T>(operation: string, schema: ZodMiniType<T>, value: unknown): T {
  const typos = nearMisses(schema, value);
  if (typos.length) throw new ValidationError(operation, typos);
  const result = safeParse(schema, value);
  if (!result.success) throw new ValidationError(operation, result.error.issues);
  return result.data;
}

/**
 * Keys of `value` that look like a typo of a field `schema` knows: the same but for case
 * (`deal_Id`), or one or two letters off (`nmae`, `evnet_types`; one only for fields of five
 * letters or fewer, where two would make `to` a typo of `id`). Other unknown keys are no one's
 * business here: they are sent as given, for fields the service has and the SDK does not know yet.
 * A key is never a typo when the field it resembles is given too (both are then meant).
 */
function nearMisses(schema: ZodMiniType, value: unknown): Issue[] {
  // An object schema's fields; other schemas (a path parameter's) have none.
  const shape = (schema as unknown as { _zod: { def: { shape?: Record<string, unknown> } } })._zod.def.shape;
  if (shape === undefined || typeof value !== 'object' || value === null) return [];
  const known = Object.keys(shape);
  const issues: Issue[] = [];
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const meant = known.find((field) => !(field in value) && isNearMiss(key, field));
    if (meant !== undefined) {
      issues.push({ path: [key], message: `${key} is not a field the SDK knows: did you mean \`${meant}\`?` });
    }
  }
  return issues;
}

function isNearMiss(key: string, field: string): boolean {
  const b = field.toLowerCase();
  // The same but for case is no edit at all.
  return editDistance(key.toLowerCase(), b) <= (b.length <= 5 ? 1 : 2);
}

/** Edits (insert, delete, replace, swap of two neighbours) that turn `a` into `b`: `nmae` → `name` is one. */
function editDistance(a: string, b: string): number {
  // Row i starts with i (deleting i letters); each cell is written before it is read.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j += 1) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      // A swap of two neighbours (a[-1] and b[-1] are undefined, so the first row and column never match).
      if (a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}


/** Options a call or a client may set, checked alike. */
interface CallSettings {
  timeout?: unknown;
  maxRetries?: unknown;
  maxPages?: unknown;
  headers?: unknown;
  signal?: unknown;
  maxResponseBytes?: unknown;
}

/**
 * Checks the options of a call before anything is sent: a ValidationError naming each bad one, so
 * no raw RangeError or TypeError escapes from below. (`hooks` are read apart, once: hook-sets.ts.)
 */
export function checkSettings(operation: string, settings: CallSettings): void {
  const issues = settingsIssues(settings);
  if (issues.length) throw new ValidationError(operation, issues);
}

/** What is wrong with the options of a call or a client, one issue each (the client adds its own). */
export function settingsIssues({ timeout, maxRetries, maxPages, headers, signal, maxResponseBytes }: CallSettings): Issue[] {
  const issues: Issue[] = [];
  if (timeout !== undefined && !(Number.isInteger(timeout) && (timeout as number) > 0 && (timeout as number) <= MAX_TIMER_MS)) {
    issues.push({ path: ['timeout'], message: `timeout must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}` });
  }
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && (maxRetries as number) >= 0)) {
    issues.push({ path: ['maxRetries'], message: 'maxRetries must be a whole number, 0 or more' });
  }
  if (maxPages !== undefined && !(Number.isInteger(maxPages) && (maxPages as number) >= 1)) {
    issues.push({ path: ['maxPages'], message: 'maxPages must be a whole number, 1 or more' });
  }
  if (headers !== undefined && (typeof headers !== 'object' || headers === null || Array.isArray(headers))) {
    issues.push({ path: ['headers'], message: 'headers must be an object of header names to string values' });
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    issues.push({ path: ['signal'], message: 'signal must be an AbortSignal, such as AbortSignal.timeout(5_000)' });
  }
  if (maxResponseBytes !== undefined && !(Number.isSafeInteger(maxResponseBytes) && (maxResponseBytes as number) >= 1)) {
    issues.push({ path: ['maxResponseBytes'], message: 'maxResponseBytes must be a whole number of bytes, 1 or more (default 67108864, 64 MiB)' });
  }
  return issues;
}
