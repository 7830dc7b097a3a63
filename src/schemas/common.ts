import * as z from 'zod/mini';

/** A string field that must not be empty; `what` says what to pass, for the error message. */
export function requiredString(field: string, what: string) {
  return z.string({ error: `${field} is required: pass ${what} as a string` }).check(
    z.minLength(1, `${field} must not be empty: pass ${what}`),
  );
}

/** An id: a positive integer. */
export function idField(field: string) {
  return z.int({ error: `${field} must be an integer id, as the service returned it` }).check(
    z.positive(`${field} must be a positive integer id`),
  );
}

/**
 * A string the spec names some values of, typed as those values or any other string.
 * Nothing is rejected: the service may accept values the spec does not list.
 */
export function openEnum<const T extends string>(field: string, known: readonly T[]) {
  return requiredString(field, `a value such as '${known.join("' or '")}'`) as unknown as z.ZodMiniType<
    T | (string & {}),
    T | (string & {})
  >;
}

/** The same open enum as found in a response: any string, no emptiness check. */
export function openEnumOut<const T extends string>() {
  return z.string() as unknown as z.ZodMiniType<T | (string & {})>;
}

/**
 * A params type without the `[key: string]: unknown` its loose schema gives it: the known fields
 * only, so a misspelt key in an object literal (`{ nmae }`) is a compile error, as in stripe's and
 * openai's SDKs. The schema stays loose: at run time an unknown key is still sent (a field the
 * service has and the SDK does not know yet), unless it is a near miss of a known one (core/validate.ts).
 */
export type KnownFields<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : symbol extends K ? never : K]: T[K];
};
