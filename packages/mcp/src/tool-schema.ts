// Tool schemas as the MCP server SDK takes them (a Standard Schema with its JSON Schema), built
// from zod/mini. zod/mini schemas carry no `~standard.jsonSchema`, and the SDK's fallback for zod
// prints a warning, so the JSON Schema is made here, once, and trimmed to what every model host
// accepts: no `$schema` (some hosts reject the keyword), the rest is JSON Schema 2020-12.
import { jsonSchemaFacts } from 'svc-sdk/internal';
import * as z from 'zod/mini';

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/** What `McpServer.registerTool` takes as `inputSchema` / `outputSchema`: validation and the JSON Schema to advertise. */
export interface ToolSchema<T> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: 'svc-sdk';
    readonly validate: (value: unknown) => { value: T; issues?: undefined } | { issues: { message: string; path?: PropertyKey[] }[] };
    readonly jsonSchema: { readonly input: () => JsonSchema; readonly output: () => JsonSchema };
    readonly types?: { readonly input: T; readonly output: T } | undefined;
  };
  /** The advertised JSON Schema (the same object `tools/list` sends). */
  readonly json: JsonSchema;
}

/**
 * Wraps a zod/mini object schema for a tool: validation by zod, the JSON Schema from `z.toJSONSchema` without
 * `$schema`, with what the library's refinements mean (an id is an integer above 0), which zod cannot see in them.
 */
export function toolSchema<T>(schema: z.ZodMiniType<T>): ToolSchema<T> {
  const override = ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }): void => void Object.assign(jsonSchema, factsOf(zodSchema));
  const { $schema: _dropped, ...json } = trim(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', override }) as JsonSchema);
  return {
    '~standard': {
      version: 1,
      vendor: 'svc-sdk',
      validate(value) {
        const parsed = z.safeParse(schema, value);
        if (parsed.success) return { value: parsed.data };
        return { issues: parsed.error.issues.map((issue) => ({ message: issue.message, path: issue.path })) };
      },
      jsonSchema: { input: () => json, output: () => json },
    },
    json,
  };
}

/** The library's JSON Schema facts of `schema`, or of the schema it was derived from (a copy with a description has the id's as its parent). */
function factsOf(schema: z.core.$ZodType): Readonly<Record<string, unknown>> | undefined {
  for (let from: z.core.$ZodType | undefined = schema; from; from = from._zod.parent) {
    const facts = jsonSchemaFacts.get(from);
    if (facts) return facts;
  }
  return undefined;
}

/** Safe-integer bounds zod writes on every integer: they tell a model nothing and cost tokens. */
const SAFE_BOUNDS: Readonly<Record<string, number>> = { maximum: Number.MAX_SAFE_INTEGER, minimum: Number.MIN_SAFE_INTEGER };

/**
 * `schema` without what says nothing (every tools/list carries it into the model's context):
 * safe-integer bounds, `additionalProperties: {}` (allowed anyway), empty `properties`.
 */
function trim(schema: JsonSchema): JsonSchema {
  const kept: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SAFE_BOUNDS[key] === value) continue;
    if (key === 'additionalProperties' && isEmptyObject(value)) continue;
    if (key === 'properties' && isEmptyObject(value)) continue;
    if (key === 'properties' && value && typeof value === 'object') {
      kept[key] = Object.fromEntries(Object.entries(value).map(([name, field]) => [name, trim(field as JsonSchema)]));
    } else if (Array.isArray(value)) kept[key] = value.map((item) => (item && typeof item === 'object' ? trim(item as JsonSchema) : item));
    else kept[key] = value && typeof value === 'object' ? trim(value as JsonSchema) : value;
  }
  return kept;
}

function isEmptyObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}
