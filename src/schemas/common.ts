import * as z from 'zod/mini';

// The checks below are refinements rather than zod's z.int(), z.positive() and z.minLength(): those
// bring zod's number-format and length-check machinery, 835 B of the browser Client's gzip (measured),
// for two rules a predicate states as plainly. A refinement says nothing to z.toJSONSchema, so what
// each means in JSON Schema is kept beside it (jsonSchemaFacts), as zod wrote it for those checks.

/**
 * What the refinements of a schema made here mean in JSON Schema, by schema: what the MCP server's
 * tools advertise for their arguments (its z.toJSONSchema `override` adds them).
 */
export const jsonSchemaFacts = new WeakMap<object, Readonly<Record<string, unknown>>>();

/** A string field that must not be empty; `what` says what to pass, for the error message. */
export function requiredString(field: string, what: string) {
  const schema = z.string({ error: `${field} is required: pass ${what} as a string` }).check(
    z.refine((value) => value !== '', `${field} must not be empty: pass ${what}`),
  );
  jsonSchemaFacts.set(schema, { minLength: 1 });
  return schema;
}

/** An id: a positive (safe) integer. A number that is not an integer is named as such; a whole number below 1 as not positive. */
export function idField(field: string) {
  const notAnId = `${field} must be an integer id, as the service returned it`;
  const schema = z.number({ error: notAnId }).check(
    // abort: a fraction is not an id at all, and the positivity check has nothing to add.
    z.refine(Number.isSafeInteger, { error: notAnId, abort: true }),
    z.refine((value) => value > 0, `${field} must be a positive integer id`),
  );
  jsonSchemaFacts.set(schema, { type: 'integer', exclusiveMinimum: 0 });
  return schema;
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
