import { describe, expect, it } from 'vitest';
import { dataProblems, dataSchemaProblems } from './data-validation.ts';
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
});
