import { safeParse, type ZodMiniType } from 'zod/mini';
import { ValidationError } from './errors.js';

/**
 * Checks a call's arguments before anything is sent, and returns them as parsed.
 * Throws a `ValidationError` naming each bad field; the request is never made.
 */
export function parseParams<T>(operation: string, schema: ZodMiniType<T>, value: unknown): T {
  const result = safeParse(schema, value);
  if (!result.success) throw new ValidationError(operation, result.error.issues);
  return result.data;
}
