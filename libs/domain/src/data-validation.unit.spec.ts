import { describe, expect, it } from 'vitest';
import { compileProblem, dataProblems, dataSchemaProblems } from './data-validation.ts';
import { inferDataSchema } from './template-variables.ts';

describe('dataProblems', () => {
  const { schema } = inferDataSchema(['<%= it.name %><% it.items.forEach(function (item) { %><%= item.sku %><% }) %>']);

  it('names each missing variable as data.<path>, one entry each', () => {
    expect(dataProblems(schema, {})).toEqual([
      { field: 'data.items', message: 'is required' },
      { field: 'data.name', message: 'is required' },
    ]);
  });

  it('names a variable of the wrong type and a missing field of an array element', () => {
    expect(dataProblems(schema, { name: 'x', items: 'nope' })).toEqual([{ field: 'data.items', message: 'must be an array' }]);
    expect(dataProblems(schema, { name: 'x', items: [{ sku: 1 }, {}] })).toEqual([{ field: 'data.items.1.sku', message: 'is required' }]);
  });

  it('accepts data that fits, extra fields included', () => {
    expect(dataProblems(schema, { name: 'x', items: [], extra: true })).toEqual([]);
  });

  it('checks declared schemas, types included', () => {
    const declared = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };
    expect(dataProblems(declared, { total: '12' })).toEqual([{ field: 'data.total', message: 'must be a number' }]);
  });
});

describe('dataSchemaProblems', () => {
  it('refuses a schema that is not an object schema or names unknown types', () => {
    expect(dataSchemaProblems({ type: 'array' })).toEqual([{ field: 'dataSchema.type', message: 'must be "object": data is an object' }]);
    expect(dataSchemaProblems({ type: 'object', properties: { a: { type: 'strnig' } } })[0]?.field).toBe('dataSchema.properties.a.type');
    expect(dataSchemaProblems({ type: 'object', required: 'a' })[0]?.field).toBe('dataSchema.required');
    expect(dataSchemaProblems({ type: 'object', $ref: 'http://example.com/s.json' })[0]?.field).toBe('dataSchema.$ref');
  });

  it('accepts an ordinary JSON Schema, even with a property named "type"', () => {
    expect(dataSchemaProblems({ type: 'object', properties: { type: { type: 'string' }, n: { type: ['number', 'null'] } } })).toEqual([]);
  });

  it('refuses chained anyOf/$ref (the 1.3 KB, 18-level schema), wide $ref fan-out and $ref cycles, naming the limit', () => {
    const chain = (levels: number, width: number) => {
      const defs: Record<string, unknown> = {};
      for (let i = 0; i < levels; i++) defs[`d${i}`] = { anyOf: Array.from({ length: width }, () => ({ $ref: `#/$defs/d${i + 1}` })) };
      defs[`d${levels}`] = { type: 'string' };
      return { type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs: defs };
    };
    expect(dataSchemaProblems(chain(18, 2))[0]?.message).toMatch(/PRESSROOM_MAX_SCHEMA_(DEPTH|NODES)/);
    expect(dataSchemaProblems(chain(6, 10))[0]?.message).toMatch(/PRESSROOM_MAX_SCHEMA_NODES/);
    expect(dataSchemaProblems(chain(3, 2))).toEqual([]);
    const cycle = {
      type: 'object',
      properties: { n: { $ref: '#/$defs/n' } },
      $defs: { n: { properties: { next: { $ref: '#/$defs/n' } } } },
    };
    expect(dataSchemaProblems(cycle)[0]?.message).toMatch(/refers back to itself/);
    expect(dataSchemaProblems({ type: 'object', properties: { self: { $ref: '#' } } })[0]?.message).toMatch(/refers back to itself/);
    expect(dataSchemaProblems({ type: 'object', properties: { x: { $ref: '#/$defs/none' } } })[0]?.message).toMatch(/points to nothing/);
  });

  it('refuses patterns RE2 cannot run (lookaround, backreferences), overlong patterns and patternProperties', () => {
    const withPattern = (pattern: string) => ({ type: 'object', properties: { x: { type: 'string', pattern } } });
    expect(dataSchemaProblems(withPattern('^(?=a)a+$'))[0]).toMatchObject({
      field: 'dataSchema.properties.x.pattern',
      message: expect.stringMatching(/RE2/),
    });
    expect(dataSchemaProblems(withPattern('^(a+)\\1$'))[0]?.field).toBe('dataSchema.properties.x.pattern');
    expect(dataSchemaProblems(withPattern('a'.repeat(600)))[0]?.message).toMatch(/longer than/);
    expect(dataSchemaProblems({ type: 'object', patternProperties: { '^a': {} } })[0]?.field).toBe('dataSchema.patternProperties');
    expect(dataSchemaProblems(withPattern('^(a+)+$'))).toEqual([]);
  });

  it('refuses a schema nested 10,000 levels or larger than the size limit without overflowing', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 10_000; i++) deep = { type: 'object', properties: { a: deep } };
    expect(dataSchemaProblems(deep)[0]?.message).toMatch(/PRESSROOM_MAX_SCHEMA_DEPTH/);
    const big = { type: 'object', properties: { x: { enum: Array.from({ length: 20_000 }, (_, i) => `v${i}`) } } };
    expect(dataSchemaProblems(big)[0]?.message).toMatch(/PRESSROOM_MAX_SCHEMA_BYTES/);
  });
});

describe('patterns run on RE2', () => {
  it('checks ^(a+)+$ against 28 a and a b (catastrophic for a backtracking engine) and names the field', () => {
    const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } };
    expect(compileProblem(schema)).toBeUndefined();
    expect(dataProblems(schema, { code: `${'a'.repeat(28)}b` })).toEqual([
      { field: 'data.code', message: 'does not match the pattern the template declares' },
    ]);
    expect(dataProblems(schema, { code: 'aaaa' })).toEqual([]);
  });

  it('keeps JSON Schema semantics: a pattern matches anywhere unless anchored; "pattern" as a property name is not a keyword', () => {
    const schema = { type: 'object', properties: { pattern: { type: 'string', pattern: 'b+' } } };
    expect(dataProblems(schema, { pattern: 'abba' })).toEqual([]);
    expect(dataProblems(schema, { pattern: 'aaa' })[0]?.field).toBe('data.pattern');
  });
});
