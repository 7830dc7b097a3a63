import { Ajv2020 } from 'ajv/dist/2020.js';
import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { toolSchema } from '../../packages/mcp/src/tool-schema.js';
import { connected } from './support.js';

type Schema = Record<string, unknown>;

/**
 * What some model hosts reject, found anywhere in a schema: `$schema`, a top-level
 * anyOf/oneOf/allOf, an enum with a non-string value, a `type` given as an array (a union).
 */
function lint(schema: Schema, path = '#'): string[] {
  const problems: string[] = [];
  if (path === '#') {
    for (const keyword of ['anyOf', 'oneOf', 'allOf']) if (keyword in schema) problems.push(`${path}: top-level ${keyword}`);
    if (schema['type'] !== 'object') problems.push(`${path}: type is not "object"`);
  }
  if ('$schema' in schema) problems.push(`${path}: $schema`);
  if (Array.isArray(schema['type'])) problems.push(`${path}: union type ${JSON.stringify(schema['type'])}`);
  if (Array.isArray(schema['enum']) && !schema['enum'].every((value) => typeof value === 'string')) problems.push(`${path}: non-string enum`);
  if ('const' in schema && typeof schema['const'] !== 'string') problems.push(`${path}: non-string const`);
  for (const [key, value] of Object.entries(schema)) {
    if (Array.isArray(value)) value.forEach((item, index) => item && typeof item === 'object' && problems.push(...lint(item as Schema, `${path}/${key}/${index}`)));
    else if (value && typeof value === 'object') problems.push(...lint(value as Schema, `${path}/${key}`));
  }
  return problems;
}

async function allTools() {
  const t = await connected({ allowWrites: true, allowDestructive: true });
  const { tools } = await t.mcp.listTools();
  await t.close();
  return tools;
}

describe('schemas every model accepts', () => {
  it('the lint finds what it looks for (a schema with each fault)', () => {
    expect(lint({ $schema: 'x', anyOf: [], type: 'object', properties: { a: { type: ['string', 'null'] }, b: { enum: ['x', 1] }, c: { const: 2 } } })).toEqual([
      '#: top-level anyOf',
      '#: $schema',
      '#/properties/a: union type ["string","null"]',
      '#/properties/b: non-string enum',
      '#/properties/c: non-string const',
    ]);
  });

  it('every input and output schema passes the lint and compiles under Ajv (JSON Schema 2020-12, strict)', async () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const tool of await allTools()) {
      for (const [kind, schema] of [['input', tool.inputSchema], ['output', tool.outputSchema]] as const) {
        expect(lint(schema as Schema), `${tool.name} ${kind}`).toEqual([]);
        expect(() => ajv.compile(schema as Schema), `${tool.name} ${kind}`).not.toThrow();
      }
    }
  });

  it('a schema says only what tells a model something: no safe-integer bounds, no empty additionalProperties or properties, at any depth; real bounds stay', async () => {
    const tools = await allTools();
    const listed = tools.find((tool) => tool.name === 'deal_transactions_list')!;
    expect(listed.inputSchema).toEqual({
      type: 'object',
      properties: { deal_id: { type: 'integer', exclusiveMinimum: 0, description: 'The deal id.' }, limit: { type: 'integer', minimum: 1, maximum: 50 }, cursor: { type: 'string' } },
      required: ['deal_id'],
    });
    expect(listed.outputSchema).toEqual({
      type: 'object',
      properties: { transactions: { type: 'array', items: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] } }, next_cursor: { type: 'string' }, hint: { type: 'string' } },
      required: ['transactions'],
    });
    // A write: its arguments plus the token (described for the model), its answer a preview or a committed result.
    const write = tools.find((tool) => tool.name === 'webhook_create')!;
    expect((write.inputSchema.properties as Record<string, unknown>)['commit_token']).toEqual({ type: 'string', description: "Omit to preview; then pass the preview's token to commit." });
    expect(write.inputSchema.required).toEqual(['url', 'name', 'event_types']);
    expect(write.outputSchema).toEqual({
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['preview', 'committed'] },
        preview: { type: 'object', properties: { operation: { type: 'string' } }, required: ['operation'] },
        commit_token: { type: 'string' },
        result: { type: 'object', properties: { webhook: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] }, secret_file: { type: 'string' }, note: { type: 'string' } }, required: ['webhook', 'secret_file', 'note'] },
      },
      required: ['status'],
    });
    const all = JSON.stringify(tools);
    for (const noise of [String(Number.MAX_SAFE_INTEGER), '"additionalProperties":{}', '"properties":{}', '$schema']) expect(all).not.toContain(noise);
    // Inside lists (items, anyOf) and nested objects too; an empty loose object is just an object.
    const schema = toolSchema(z.object({ a: z.looseObject({}), b: z.array(z.looseObject({ c: z.int() })), d: z.optional(z.union([z.int(), z.string()])) }));
    expect(schema.json).toEqual({
      type: 'object',
      properties: { a: { type: 'object' }, b: { type: 'array', items: { type: 'object', properties: { c: { type: 'integer' } }, required: ['c'] } }, d: { anyOf: [{ type: 'integer' }, { type: 'string' }] } },
      required: ['a', 'b'],
    });
    // What says something stays: a strict object's additionalProperties: false, an array of anything, and fields named like keywords.
    expect(toolSchema(z.object({ strict: z.strictObject({ s: z.string() }), any: z.array(z.unknown()), properties: z.unknown(), additionalProperties: z.unknown() })).json).toEqual({
      type: 'object',
      properties: { strict: { type: 'object', properties: { s: { type: 'string' } }, required: ['s'], additionalProperties: false }, any: { type: 'array', items: {} }, properties: {}, additionalProperties: {} },
      required: ['strict', 'any', 'properties', 'additionalProperties'],
    });
    expect(schema['~standard'].jsonSchema.input()).toBe(schema.json);
    expect(schema['~standard'].jsonSchema.output()).toBe(schema.json);
    expect(schema['~standard'].validate({ a: {}, b: [{ c: 1 }] })).toEqual({ value: { a: {}, b: [{ c: 1 }] } });
    expect(schema['~standard'].validate({ a: {}, b: [{ c: 1.5 }] })).toEqual({ issues: [{ message: expect.any(String), path: ['b', 0, 'c'] }] });
  });

  it('tools/list of every tool costs at most 3 000 tokens (o200k, gpt-tokenizer)', async () => {
    const tools = await allTools();
    const tokens = encode(JSON.stringify({ tools })).length;
    expect(tokens).toBeLessThanOrEqual(3000);
    // Recorded for the report: the size as a model sees it.
    console.info(`tools/list: ${tools.length} tools, ${tokens} tokens`);
  });
});
