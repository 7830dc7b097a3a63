import { safeParse, type ZodMiniType } from 'zod/mini';
import { ValidationError, type Issue } from './errors.js';
import { hooksIssues } from './hooks.js'; // hooks:

/**
 * Checks a call's arguments before anything is sent, and returns them as parsed.
 * Throws a `ValidationError` naming each bad field; the request is never made.
 */
export function parseParams<T>(operation: string, schema: ZodMiniType<T>, value: unknown): T {
  const result = safeParse(schema, value);
  if (!result.success) throw new ValidationError(operation, result.error.issues);
  return result.data;
}

/** The longest timer a runtime can set (2^31-1 ms, about 24.8 days); a longer `timeout` would overflow. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** Options a call or a client may set, checked alike. */
interface CallSettings {
  timeout?: unknown;
  maxRetries?: unknown;
  maxPages?: unknown;
  headers?: unknown;
  signal?: unknown;
  maxResponseBytes?: unknown;
  hooks?: unknown; // hooks:
}

/**
 * Checks the options of a call before anything is sent: a ValidationError naming each bad one, so
 * no raw RangeError or TypeError escapes from below.
 */
export function checkSettings(operation: string, settings: CallSettings): void {
  const issues = settingsIssues(settings);
  if (issues.length) throw new ValidationError(operation, issues);
}

/** What is wrong with the options of a call or a client, one issue each (the client adds its own). */
export function settingsIssues({ timeout, maxRetries, maxPages, headers, signal, maxResponseBytes, hooks }: CallSettings): Issue[] {
  const issues: Issue[] = [];
  if (timeout !== undefined && !(Number.isInteger(timeout) && (timeout as number) > 0 && (timeout as number) <= MAX_TIMEOUT_MS)) {
    issues.push({ path: ['timeout'], message: `timeout must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}` });
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
  issues.push(...hooksIssues(hooks)); // hooks: each set an object of functions
  return issues;
}
