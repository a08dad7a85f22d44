import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeVariables, inferDataSchema } from './template-variables.ts';
import { dataProblems } from './data-validation.ts';

describe('inferDataSchema', () => {
  it('collects it.x and it.x.y, marking objects and requiring what is used unguarded', () => {
    const { schema, names } = inferDataSchema(['<h1><%= it.title %></h1><p><%= it.customer.name %>, <%= it.customer.city %></p>']);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        customer: { type: 'object', properties: { city: {}, name: {} }, required: ['city', 'name'] },
        title: {},
      },
      required: ['customer', 'title'],
    });
    expect(names).toEqual(['customer', 'customer.city', 'customer.name', 'title']);
  });

  it('turns forEach / map / for-of loops into arrays whose elements carry the loop variable fields', () => {
    const { schema, names } = inferDataSchema([
      '<% it.items.forEach(function (item) { %><%= item.name %><% }) %>' +
        '<% it.lines.forEach((line, i) => { %><%= line.qty %><% }) %>' +
        '<% for (const tag of it.tags) { %><%= tag %><% } %>' +
        '<%= it.rows.map(r => r.cells.join(",")).join("") %>',
    ]);
    expect(names).toEqual(['items[]', 'items[].name', 'lines[]', 'lines[].qty', 'rows[]', 'rows[].cells[]', 'tags[]']);
    expect((schema.properties as Record<string, unknown>).items).toEqual({
      type: 'array',
      items: { type: 'object', properties: { name: {} }, required: ['name'] },
    });
    expect(schema.required).toEqual(['items', 'lines', 'rows', 'tags']);
  });

  it('treats guarded uses as optional and ignores text outside tags, strings and method calls', () => {
    const { schema } = inferDataSchema([
      'it.notAVariable <% if (it.discount) { %><%= it.discount %><% } %><%= it.note ?? "" %><%= "it.inString" %><%= it.name.toUpperCase() %>',
      undefined,
      '<%= it.footerText || "" %>',
    ]);
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual(['discount', 'footerText', 'name', 'note']);
    expect(schema.required).toEqual(['name']);
  });

  it('never asks the caller for what the renderer supplies ($page, $pages) or every object inherits (constructor)', () => {
    const found = inferDataSchema([
      '<%= it.customer %> <%= it.constructor.constructor("x") %>',
      undefined,
      'Page <%= it.$page %> of <%= it.$pages %>',
    ]);
    expect(found.names).toEqual(['customer']);
  });

  it('includes header and footer sources and finds nothing in a template without variables', () => {
    expect(inferDataSchema(['<p>static</p>']).names).toEqual([]);
    expect(inferDataSchema(['<p>body</p>', '<%= it.company %>']).names).toEqual(['company']);
  });

  it('infers the shared invoice fixture so that its own data passes', () => {
    const dir = join(import.meta.dirname, '../../../test/fixtures/invoice');
    const template = readFileSync(join(dir, 'invoice.eta'), 'utf8');
    const data = JSON.parse(readFileSync(join(dir, 'invoice.json'), 'utf8')) as unknown;
    const { schema, names } = inferDataSchema([template]);
    expect(names).toContain('items[].sku');
    expect(names).toContain('seller.name');
    expect(dataProblems(schema, data)).toEqual([]);
  });
});

describe('describeVariables', () => {
  it('lists declared variables with type and whether required', () => {
    expect(
      describeVariables({
        type: 'object',
        properties: {
          total: { type: 'number' },
          lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
        },
        required: ['total'],
      }),
    ).toEqual([
      { name: 'lines[]', type: 'array', required: false },
      { name: 'lines[].sku', type: 'string', required: false },
      { name: 'total', type: 'number', required: true },
    ]);
  });
});

describe('inferDataSchema on hostile sources', () => {
  it('refuses a 4,000-segment member chain (it used to overflow the stack) and cuts the schema at the depth limit', () => {
    const r = inferDataSchema([`<%= it${'.a'.repeat(4_000)} %>`]);
    expect(r.problems).toEqual([
      { field: 'content', message: 'uses a variable nested deeper than 32 levels (limit PRESSROOM_MAX_DATA_DEPTH)' },
    ]);
    expect(r.names).toHaveLength(32);
    expect(inferDataSchema(['<%= it.a.b %>'], { maxDepth: 1 }).problems).toHaveLength(1);
  });

  it('takes unclosed tags, unterminated strings and unclosed loop heads in its stride', () => {
    const all = { maxCode: Infinity };
    expect(inferDataSchema(['<%'.repeat(120_000)])).toMatchObject({ names: [], problems: [] });
    expect(inferDataSchema([`<% ${`'\\`.repeat(120_000)} %>`], all)).toMatchObject({ names: [], problems: [] });
    expect(inferDataSchema([`<% ${'it.a.forEach((x'.repeat(15_000)} %>`], all).names).toEqual(['a[]']);
    expect(inferDataSchema(['<%= it.x %> <% "unterminated it.y %>']).names).toEqual(['x']);
  });

  it('refuses more code inside tags than PRESSROOM_MAX_TEMPLATE_CODE_BYTES (markup outside tags does not count)', () => {
    expect(inferDataSchema([`<% ${`'\\`.repeat(40_000)} %>`]).problems[0]?.message).toMatch(/PRESSROOM_MAX_TEMPLATE_CODE_BYTES/);
    expect(inferDataSchema([`<p>${'x'.repeat(200_000)}</p><%= it.name %>`])).toMatchObject({ names: ['name'], problems: [] });
  });

  it('resolves thousands of loop aliases and chains of aliases up to the depth limit', () => {
    const loops = Array.from({ length: 5_000 }, (_, i) => `it.l${i}.forEach((a${i}, j) => { %><%= a${i}.v %><% })`).join(';');
    expect(inferDataSchema([`<% ${loops} %>`], { maxCode: Infinity }).names).toHaveLength(10_000);
    const chained = Array.from({ length: 100 }, (_, i) => `${i ? `a${i - 1}` : 'it'}.x.forEach(a${i} => {`).join('');
    expect(inferDataSchema([`<% ${chained} %>`]).problems).toHaveLength(1);
  });
});
